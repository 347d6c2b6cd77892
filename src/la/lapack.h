/* lapack.h - prototypes of the LAPACK routines mbsim calls (Fortran
 * calling convention, column-major, every argument by reference). */
#ifndef MBSIM_LAPACK_H
#define MBSIM_LAPACK_H

void dgtsv_(const int *n, const int *nrhs, double *dl, double *d, double *du, double *b,
	    const int *ldb, int *info);
void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
	     const int *ipiv, double *b, const int *ldb, int *info);
void dgecon_(const char *norm, const int *n, const double *a, const int *lda,
	     const double *anorm, double *rcond, double *work, int *iwork, int *info);
double dlange_(const char *norm, const int *m, const int *n, const double *a, const int *lda,
	       double *work);

void dgeqp3_(const int *m, const int *n, double *a, const int *lda, int *jpvt, double *tau,
	     double *work, const int *lwork, int *info);
void dgeqrf_(const int *m, const int *n, double *a, const int *lda, double *tau, double *work,
	     const int *lwork, int *info);
void dorm2r_(const char *side, const char *trans, const int *m, const int *n, const int *k,
	     const double *a, const int *lda, const double *tau, double *c, const int *ldc,
	     double *work, int *info);
void dtrsv_(const char *uplo, const char *trans, const char *diag, const int *n, const double *a,
	    const int *lda, double *x, const int *incx);
void dsygv_(const int *itype, const char *jobz, const char *uplo, const int *n, double *a,
	    const int *lda, double *b, const int *ldb, double *w, double *work, const int *lwork,
	    int *info);
void dgemv_(const char *trans, const int *m, const int *n, const double *alpha, const double *a,
	    const int *lda, const double *x, const int *incx, const double *beta, double *y,
	    const int *incy);
void dggev_(const char *jobvl, const char *jobvr, const int *n, double *a, const int *lda,
	    double *b, const int *ldb, double *alphar, double *alphai, double *beta,
	    double *vl, const int *ldvl, double *vr, const int *ldvr, double *work,
	    const int *lwork, int *info);

#endif
