/* lapack.h - prototypes of the LAPACK routines mbsim calls (Fortran
 * calling convention, column-major, every argument by reference). */
#ifndef MBSIM_LAPACK_H
#define MBSIM_LAPACK_H

void dgetrf_(const int *m, const int *n, double *a, const int *lda, int *ipiv, int *info);
void dgetrs_(const char *trans, const int *n, const int *nrhs, const double *a, const int *lda,
	     const int *ipiv, double *b, const int *ldb, int *info);
void dgecon_(const char *norm, const int *n, const double *a, const int *lda,
	     const double *anorm, double *rcond, double *work, int *iwork, int *info);
double dlange_(const char *norm, const int *m, const int *n, const double *a, const int *lda,
	       double *work);

#endif
