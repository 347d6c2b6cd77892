/* rosenbrock.h - the coefficients of the Rosenbrock-Nystrom family
 * (rosenbrock.c), for the kernel and its tests. */
#ifndef MBSIM_ROSENBROCK_H
#define MBSIM_ROSENBROCK_H

#define ROS_SMAX 4

/* The Nystrom form (Theorem 2.1). */
struct ros_coef {
	int s, q;
	double gamma;
	double alpha[ROS_SMAX], gi[ROS_SMAX];
	double a[ROS_SMAX][ROS_SMAX], c[ROS_SMAX][ROS_SMAX], d[ROS_SMAX][ROS_SMAX];
	double th[ROS_SMAX][ROS_SMAX];
	double m[ROS_SMAX], mh[ROS_SMAX], mu[ROS_SMAX], muh[ROS_SMAX];
	int reuse[ROS_SMAX];	/* stage i's point is stage i-1's */
};

/* Coefficients of scheme id (INTEG_RN4 or INTEG_W2) in Nystrom form. */
void ros_make(int id, struct ros_coef *C);

#endif
