/* A-optimal experiment design with a cost budget (Ernest, NSDI'16 section 3.3):
 *
 *   minimize trace(M(l)^-1),  M(l) = sum_i l_i a_i a_i^T,  0 <= l_i <= 1,  sum_i c_i l_i <= B
 *
 * solved by spectral projected gradient with an exact projection onto the box-and-budget
 * polytope: no solver dependency in C (Ernest's reference code used CVXPY). */
#ifndef CLARITY_DESIGN_H
#define CLARITY_DESIGN_H
#include <stdbool.h>
#include <stddef.h>
#include "clarity/error.h"

struct clarity_design_problem {
    const double *a;        /* n x d feature vectors, row-major */
    size_t n, d;
    const double *cost;     /* n positive costs */
    double budget;
};

struct clarity_design_result {
    double *lambda;         /* n weights in [0, 1] (malloc'd; clarity_design_result_free) */
    double f;               /* trace(M^-1) at lambda */
    double spent;           /* sum c_i lambda_i */
    double nu;              /* KKT multiplier of the budget: median of -g_i/c_i on fractional points */
    double stationarity;    /* ||lambda - P(lambda - g)||_inf at the end */
    int iterations;
    bool converged;
};

/* Returns 0; CLARITY_EUSAGE when there is no candidate, d is too large, or the candidates do
 * not span R^d (the objective is infinite everywhere); CLARITY_ENOMEM. err says which. */
int clarity_design_solve(const struct clarity_design_problem *p, struct clarity_design_result *r,
                         struct clarity_error *err);
void clarity_design_result_free(struct clarity_design_result *r);

/* trace(M^-1) for given weights (INFINITY when M is singular); grad (may be NULL) gets
 * -||M^-1 a_i||^2. */
double clarity_design_objective(const struct clarity_design_problem *p, const double *lambda, double *grad);

/* Euclidean projection of v onto {0 <= x <= 1, c^T x <= B}. */
void clarity_design_project(const double *v, const double *cost, size_t n, double budget, double *out);

#endif
