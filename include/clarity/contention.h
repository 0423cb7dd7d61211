/* iQCAR (Kalmegh, Babu, Roy 2018): which concurrent queries slowed a query, on which resource
 * and host, and by how much.
 *
 * Three layers, each usable alone (unit tests check each on worked examples):
 *   iqcar_graph  the 7-level iQC-Graph: nodes with vertex contributions, impact factors,
 *                degree of responsibility per target query (paper Table 2, App. B);
 *   iqcar_tasks  per task attempt: wait components, data processed and RATP per resource
 *                sub-type, from one or several models: instrumented accumulables, a sidecar
 *                CSV, or labelled proxies where standard logs lack the wait;
 *   iqcar_build  blame from overlapping tasks per host (interval sweep, Eq. 6, Unknown),
 *                the graph from it, and the answers (top-k, noisy, aggressive, victims, slow
 *                hosts, hot resources, rules, the simple-overlap baseline).
 * Nothing here prints: every function that can fail returns 0 or a CLARITY_E* code and fills
 * its struct clarity_error. */
#ifndef CLARITY_CONTENTION_H
#define CLARITY_CONTENTION_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "clarity/error.h"
#include "clarity/model.h"

/* ---- resources (IE, level 2) and their sub-types (DE, level 3) ---- */
enum iqcar_res { IQ_SLOTS, IQ_CPU, IQ_MEM, IQ_NET, IQ_IO, IQ_NRES };
enum iqcar_sub {
    IQ_S_SLOTS, IQ_S_CPU_BLOCKED, IQ_S_CPU_WAITED, IQ_S_MEM_STORAGE, IQ_S_MEM_EXEC, IQ_S_NET,
    IQ_S_IO_READ, IQ_S_IO_WRITE, IQ_NSUB
};
const char *clarity_iqcar_res_name(int r);       /* "SLOTS", "CPU", "MEMORY", "NETWORK", "IO" */
const char *clarity_iqcar_sub_name(int p);       /* "SWT/slots_offered", ... */
int clarity_iqcar_sub_res(int p);                /* the resource a sub-type belongs to */

/* ---- the iQC-Graph ---- */
enum iqcar_kind { IQ_K_NODE, IQ_K_UNKNOWN, IQ_K_SELF, IQ_K_KNOWN };
/* 24 bytes: a graph has ~30 nodes per query, so on a log of 10^6 one-job queries every 8 bytes
 * here are 240 MB; level, kind and target share one 32-bit word (hence at most
 * IQ_MAX_TARGETS queries, which iqcar_collect checks). */
struct iqcar_node {
    double vc;                           /* vertex contribution */
    int32_t a, b, c;                     /* caller's ids (query/stage/resource/host...) */
    int32_t target : 27;                 /* L0-L4: index of the L0 node they explain; else -1 */
    uint32_t level : 3;                  /* 0..6 */
    uint32_t kind : 2;                   /* enum iqcar_kind */
};
#define IQ_MAX_TARGETS (((size_t)1 << 26) - 1)
struct iqcar_edge { uint32_t from, to; double imf; };  /* from = level l+1, to = level l */
struct iqcar_graph {
    struct iqcar_node *nodes; size_t nnodes, cap_nodes;
    struct iqcar_edge *edges; size_t nedges, cap_edges;
    uint32_t *l0;  size_t nl0;            /* L0 nodes in creation order: target t = l0[t] */
    bool finished;
};
void clarity_iqcar_graph_init(struct iqcar_graph *g);
void clarity_iqcar_graph_free(struct iqcar_graph *g);
/* Adds a node; *index (may be NULL) gets its index. Returns 0, or CLARITY_ENOMEM with err
 * filled. */
int clarity_iqcar_node_add(struct iqcar_graph *g, int level, int kind, int target, double vc, uint32_t *index,
                   struct clarity_error *err);
/* Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_edge_add(struct iqcar_graph *g, uint32_t from, uint32_t to, struct clarity_error *err);
/* Impact factors (Algorithm 1): IF_uv = VC_u / sum of VC over v's parents; 0 when that sum is
 * 0, except that a node with VC > 0 whose parents all have VC 0 gives IF 1 to its Unknown
 * parent, which keeps DOR conserved. Sorts the edges by child level. Returns 0, or
 * CLARITY_ENOMEM with err filled. */
int clarity_iqcar_graph_finish(struct iqcar_graph *g, struct clarity_error *err);
/* DOR toward target t (Algorithm 2, L0 node t seeded 1, every other L0 0), O(V+E). dor has
 * nnodes entries. */
void clarity_iqcar_graph_dor(const struct iqcar_graph *g, size_t t, double *dor);
/* Sum of the IFs into node v (1 or 0 by construction; for the invariant tests). */
double clarity_iqcar_in_if_sum(const struct iqcar_graph *g, uint32_t v);

/* The DOR toward one target at a time, visiting only what that target reaches: the same
 * figures as clarity_iqcar_graph_dor, added in the same order, so every target of a graph costs
 * its own subgraph instead of the whole graph. After clarity_iqcar_dor_walk, dor[v] holds the
 * DOR of every node (0 for the nodes not reached) and touched[0..ntouched) the nodes reached
 * (the target's L0 node first). */
struct iqcar_dor_walk {
    const struct iqcar_graph *g;
    uint32_t *up_first, *up;             /* per node: the edges into its parents, by edge index */
    double *dor;
    uint8_t *seen;
    uint32_t *touched; size_t ntouched, cap_touched;   /* grown to the largest walk, not nnodes */
    uint32_t *heap; size_t nheap, cap_heap;
    /* Set before the first walk to keep the DOR of the nodes of levels 0-4 from one walk to the
     * next: each of them belongs to one target (its query's stages, resources, DE and BE nodes),
     * so after walking every target once dor[v] holds the DOR of every such node, which the
     * answers sum per host and resource without a second per-node array. Walking a target
     * twice is then wrong: only for a walk over each target once. */
    bool keep_low;
};
/* For a finished graph. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_dor_walk_init(struct iqcar_dor_walk *w, const struct iqcar_graph *g, struct clarity_error *err);
/* 0, or CLARITY_ENOMEM (the walk's lists grow as far as the largest target reaches). */
int clarity_iqcar_dor_walk(struct iqcar_dor_walk *w, size_t t);
void clarity_iqcar_dor_walk_free(struct iqcar_dor_walk *w);

/* ---- stage DAG helpers (Level 1: all stages, or the critical path) ---- */
/* depth[i] = stages on the longest directed path from i to a root, both ends counted. Edges
 * from[k] -> to[k] (child to parent stage). Returns 0; CLARITY_EFORMAT on a cycle;
 * CLARITY_ENOMEM. */
int clarity_iqcar_dag_depth(size_t n, const size_t *from, const size_t *to, size_t nedges, int *depth,
                    struct clarity_error *err);
/* Leaf-to-root path maximising the summed runtime; ties by smaller stage index. Writes the
 * path (leaf first) into path (n entries), its length in stages into *length, its runtime into
 * *total. Returns 0 (length 0 when n is 0); CLARITY_EFORMAT on a cycle; CLARITY_ENOMEM. */
int clarity_iqcar_critical_path(size_t n, const size_t *from, const size_t *to, size_t nedges, const double *runtime,
                        size_t *path, size_t *length, double *total, struct clarity_error *err);

/* ---- formulas (RATP, blame, Unknown, hit%) ---- */
static inline double iqcar_ratp(double wait, double data) { return data > 0 ? wait / data : 0; }
/* Eq. 6: overlap / T_tt x RATP_tt / RATP_st, with RATP_st floored at ratp_h: no task consumes
 * faster than capacity, so a source that did not wait gets RATP_h. */
double clarity_iqcar_blame(double overlap, double t_tt, double ratp_tt, double ratp_st, double ratp_h);
/* The Unknown node's share of tt's slowdown (the paper gives no formula):
 * max(0, max(0, (RATP_tt - RATP_h)/RATP_h) - sum of blames - known). */
double clarity_iqcar_unknown(double ratp_tt, double ratp_h, double blames, double known);
double clarity_iqcar_hit_pct(double runtime, double unconstrained);

/* ---- analysis options and units of analysis ---- */
enum iqcar_unit { IQ_UNIT_AUTO, IQ_UNIT_SQL, IQ_UNIT_JOB, IQ_UNIT_GROUP, IQ_UNIT_POOL, IQ_UNIT_APP };
const char *clarity_iqcar_unit_name(int u);
enum iqcar_self { IQ_SELF_NODE, IQ_SELF_UNKNOWN, IQ_SELF_DROP };

struct iqcar_options {
    int unit;                            /* enum iqcar_unit; AUTO = sql when any job has one */
    int self_mode;                       /* enum iqcar_self: the query's own tasks' blame */
    bool ie_normalize;                   /* --ie-normalize=median: RATPs over their median */
    bool vc_time_weighted;               /* --vc-time-weighted: VC = sum of T x RATP */
    bool successful_only;                /* targets: successful attempts only */
    bool critical_path;                  /* L1 = critical-path stages only */
    bool rank_by_dor;                    /* slow hosts and hot resources by DOR sum */
    bool dynp_reverse;                   /* --dynp-boost=k-rank+1: most affected most */
    bool include_output_bytes;           /* IO write data includes Output Bytes Written */
    bool slot_blame_wait;                /* --slot-blame=wait: the original rule (source RATP = its own
                                            SWT / slots offered); default held, see iqcar_blame.c */
    bool aggressive_by_dor;              /* --aggressive-rank=dor: the aggressive answer (and the rules
                                            from it) ranked by the paper's total DOR; default by the
                                            victims' runtime attributed (see iqcar_answers.c) */
    bool aggressive_by_time;             /* --aggressive-rank=time: ranked by the victims' runtime
                                            attributed (the default before the replay) */
    int replay_candidates;               /* --replay-candidates K: the replay answers leave out each of
                                            the K heaviest and K most blamed queries; 0 = no replay */
    int k;                               /* top-k, default 3 */
    double p_orig;                       /* DYNP original priority, default 1 */
    const char *acc_names[7];            /* accumulable names, enum iqcar_acc order */
    const struct iqcar_sidecar *sidecar; /* --metrics-csv: replaces the accumulables it names */
};
/* Instrumented metrics read from task accumulables (iqcar.cpu.blockedTime, ...); names
 * configurable with --acc. */
enum iqcar_acc { IQ_A_CPU_BLOCKED, IQ_A_CPU_WAITED, IQ_A_MEM_STORAGE_WAIT, IQ_A_MEM_STORAGE_ASKED,
                 IQ_A_MEM_EXEC_WAIT, IQ_A_MEM_EXEC_ASKED, IQ_A_SLOTS_OFFERED, IQ_NACC };
void clarity_iqcar_options_default(struct iqcar_options *o);
/* The task accumulables the analysis reads (the SQL scan time and the instrumented metrics of
 * o), for a load that keeps only those: fills names (IQ_ACC_NAMES_MAX entries) and returns how
 * many. */
#define IQ_ACC_NAMES_MAX (2 + IQ_NACC)
size_t clarity_iqcar_accumulable_names(const struct iqcar_options *o, const char **names);

/* One task attempt as iQCAR sees it. */
struct iqcar_task {
    uint32_t unit, stage, host;          /* indices into the result's tables */
    int64_t launch, finish, submit;      /* epoch ms */
    double wait[IQ_NSUB], data[IQ_NSUB]; /* ms and bytes (slots: offers) per sub-type */
    double ratp[IQ_NSUB];
    double ie_ratp[IQ_NRES];             /* IE-level RATP (Table 4, first column) */
    double weight;                       /* L1 weight: CPU ns, run ms as fallback */
    bool ok;                             /* successful attempt */
};

struct iqcar_unit_info {                 /* one query (or job, group, pool, application) */
    char *name;
    int64_t start, end;
    size_t app;
    double tasks;
    double task_ms;                      /* summed task attempt time (launch to finish) */
};
struct iqcar_stage_info {
    size_t app, unit; int64_t stage_id; char *name; double runtime;
    bool critical;                       /* on its query's critical path */
};

/* Where each wait figure came from, for the labels in the output. */
struct iqcar_sources {
    size_t tasks, apps;
    size_t instrumented_cpu, instrumented_mem, instrumented_slots, scan_time;
    size_t sidecar_tasks;                /* tasks with a value from the sidecar CSV */
    size_t no_submit;                    /* stages without a submission time (SWT 0) */
    size_t wait_without_data[IQ_NSUB];   /* WT > 0 with DP = 0: RATP 0, counted */
};

struct iqcar_ranked { uint32_t node; double dor; double aux; };

/* A target's answer. dor_others and the baseline row are filled for every target; the ranked
 * lists (top, noisy, paths, overlap) for the victims (dor_others > 0) by clarity_iqcar_analyze
 * and for any other target by clarity_iqcar_explain (listed says which have them). */
struct iqcar_target_answer {
    size_t unit, l0;                     /* unit index, L0 node index */
    bool listed;                         /* the ranked lists below are filled */
    size_t overlap_first, overlap_cells; /* its row of the simple-overlap baseline (cells) */
    double overlap_sum;                  /* the row's sum: shares are cell / sum */
    double dor_others;                   /* DOR received from non-Unknown, non-Self queries */
    struct iqcar_ranked *top[7];         /* per level 2..6, k each (fewer when absent) */
    size_t ntop[7];
    struct iqcar_ranked *noisy; size_t nnoisy;      /* L6 without Unknown/Self */
    struct iqcar_ranked *paths; size_t npaths;      /* BE nodes = impact paths */
    struct iqcar_ranked *overlap; size_t noverlap;  /* baseline: a = unit, dor = share */
    /* [replay]: the candidates whose removal ends this query sooner in the workload replay;
     * node = unit, dor = ms sooner, aux = that as a share of its replayed runtime */
    struct iqcar_ranked *replay; size_t nreplay;
};
/* How the replay answers were made (iqcar_replay.c). */
struct iqcar_replay_info {
    bool ran;
    const char *why;                     /* when not run: a static sentence */
    int slots;                           /* cluster-wide slots replayed */
    bool fair;                           /* FAIR pools (spark.scheduler.mode), else FIFO */
    size_t candidates;                   /* queries left out, one replay each */
    bool budget_cut;                     /* fewer than --replay-candidates for the task budget */
    double fidelity;                     /* median |replayed - logged runtime| / logged, over queries */
};
/* Which ranking the aggressive answer (and the rules) use. */
enum iqcar_agg_method { IQ_AGG_REPLAY, IQ_AGG_TIME, IQ_AGG_DOR };
struct iqcar_rule {
    int id;
    const char *type;                    /* "AGG" or "DYNP" */
    size_t unit;
    const char *qtype;                   /* "Source" or "Target" */
    double value;
    int order;
};
struct iqcar_host_score { double if_sum, dor_sum; };
/* One entry of a sparse units x units table: only pairs that have a value are kept. */
struct iqcar_cell { uint32_t row, col; double v; };
struct iqcar_tasktab;                    /* the compact task table read from the models */
struct iqcar_replay_prep;

struct iqcar_result {
    struct iqcar_options opt;
    int unit_kind;                       /* resolved */
    struct iqcar_unit_info *units; size_t nunits;
    struct iqcar_stage_info *stages; size_t nstages;
    char **hosts; size_t nhosts;
    char **apps; size_t napps;
    struct iqcar_task *tasks; size_t ntasks;   /* tasks: filled by hand (the tests); from logs NULL,
                                                 the records are recomputed from the models
                                                 (clarity_iqcar_task) */
    struct iqcar_tasktab *tab;
    struct iqcar_replay_prep *replay_prep;   /* the replay's workload read early (clarity_iqcar_detach) */
    struct iqcar_sources src;
    struct iqcar_graph g;
    /* DOR of every source query (+Unknown, +Self) toward every target it reached: row = source,
     * col = target, sorted by row then col; l6_first[s] is row s's first cell (nunits + 3) */
    struct iqcar_cell *l6; size_t nl6;
    size_t *l6_first;
    struct iqcar_target_answer *targets; size_t ntargets;
    /* the storage of the targets' lists (top, noisy, paths, overlap) and of their replay lists:
     * the lists point into these */
    struct iqcar_ranked *lists, *replay_lists;
    struct iqcar_ranked **extra_lists; size_t nextra_lists;   /* clarity_iqcar_explain's */
    struct iqcar_ranked *aggressive; size_t naggressive;   /* node = unit, dor = the paper's total DOR
                                                             toward other units, aux = attributed ms */
    /* the same queries by the runtime of their victims attributed to them: sum over victims v of
     * DOR(q -> v) x runtime of v, in ms (dor), with the total DOR beside (aux) */
    struct iqcar_ranked *aggressive_time; size_t naggressive_time;
    /* [replay]: the candidates by the runtime the other queries save when each is left out of
     * the workload replay (dor, ms; aux = how many of them end sooner) */
    struct iqcar_ranked *aggressive_replay; size_t naggressive_replay;
    struct iqcar_replay_info replay;
    int aggressive_method;               /* enum iqcar_agg_method of aggressive_rank */
    /* the ranking the rules and the text's first column use: aggressive_replay when the replay
     * ran, else aggressive_time; aggressive with opt.aggressive_by_dor, aggressive_time with
     * opt.aggressive_by_time (points into one of them, not owned) */
    const struct iqcar_ranked *aggressive_rank; size_t naggressive_rank;
    /* the answer's second query has at least IQ_AGG_CLOSE of the first's figure: too close to
     * name one (see iqcar_answers.c) */
    bool aggressive_close;
    /* the heaviest-query baseline beside the answer: units by task_ms (dor), descending */
    struct iqcar_ranked *heaviest; size_t nheaviest;
    struct iqcar_ranked *victims; size_t nvictims;         /* node = unit, dor = received */
    struct iqcar_host_score *host_score; /* per host */
    struct iqcar_host_score res_score[IQ_NRES];
    struct iqcar_rule *rules; size_t nrules;
    int max_concurrency;
    size_t overlap_pairs;
    /* the simple-overlap baseline: row = target, col = source, v = sum of overlap / T_tt over
     * the target's tasks; only pairs of units whose tasks overlapped, sorted by row then col */
    struct iqcar_cell *overlap; size_t noverlap;
};
/* The aggressive answer is a close call when its second query has at least this share of the
 * first's figure (chosen on the tuning runs of bench/contention-eval.sh --grid tune). */
#define IQ_AGG_CLOSE 0.75
/* The same for the replay's answer (chosen on the same tuning runs). */
#define IQ_AGG_CLOSE_REPLAY 0.75
/* --replay-candidates' default: the K heaviest and K most blamed queries are each left out
 * of a workload replay (their union; fewer on large logs, see iqcar_replay.c). */
#define CLARITY_IQ_REPLAY_K 16
#define IQ_L6_UNKNOWN(r) ((r)->nunits)
#define IQ_L6_SELF(r) ((r)->nunits + 1)

/* ---- sidecar CSV of instrumented metrics (--metrics-csv) ----
 * Lines "task_id,attempt,metric,value" or "app_id,task_id,attempt,metric,value"; metric is an
 * --acc KEY (cpu.blocked, ...). A header line and '#' comments are skipped. */
struct iqcar_sidecar_row { int64_t task_id; int32_t attempt; int32_t app; int metric; double value; };
struct iqcar_sidecar_reject { unsigned long line; char *why; };
struct iqcar_sidecar {
    struct iqcar_sidecar_row *rows; size_t nrows;   /* sorted by task id, attempt */
    char **apps; size_t napps;           /* application ids of 5-column rows (row.app indexes) */
    size_t lines, bad;                   /* data lines read, lines rejected */
    struct iqcar_sidecar_reject *rejects;   /* the rejected lines (bad of them), in file order */
};
/* "cpu.blocked" -> IQ_A_CPU_BLOCKED ... (len bytes of s), -1 when not a key. */
int clarity_iqcar_acc_key(const char *s, size_t len);
const char *clarity_iqcar_acc_key_name(int k);
/* Reads path; every rejected line is kept in rejects (line number and why) and counted in bad,
 * for the caller to report. Returns 0; CLARITY_EIO when the file cannot be read; CLARITY_ENOMEM.
 * err->msg names the file ("cannot read PATH: reason", "error reading PATH", "out of memory
 * reading PATH"). On an error sc holds only the rejects seen before it. Free sc in every case. */
int clarity_iqcar_sidecar_load(const char *path, struct iqcar_sidecar *sc, struct clarity_error *err);
/* Parses one line (for the tests). Returns 0 with *data set and row/app filled for a data line,
 * 0 with *data false for a header, comment or blank line, or CLARITY_EFORMAT with the reason in
 * err->msg. */
int clarity_iqcar_sidecar_parse_line(char *line, struct iqcar_sidecar_row *row, char **app, bool *data,
                             struct clarity_error *err);
/* Rows of (task_id, attempt): *first gets the first index; returns how many. */
size_t clarity_iqcar_sidecar_find(const struct iqcar_sidecar *sc, int64_t task_id, int32_t attempt, size_t *first);
/* Whether a row applies to application app_id (rows without an id apply to every one). */
bool clarity_iqcar_sidecar_row_for(const struct iqcar_sidecar *sc, const struct iqcar_sidecar_row *row, const char *app_id);
/* *count = rows naming a task attempt (of their application) that none of apps has; *example
 * gets the first one's index. So that values for the wrong log do not vanish unnoticed.
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_sidecar_unmatched(const struct iqcar_sidecar *sc, const struct clarity_app *const *apps, size_t napps,
                            size_t *count, size_t *example, struct clarity_error *err);
void clarity_iqcar_sidecar_free(struct iqcar_sidecar *sc);

/* Marks r->stages[i].critical: per unit, the leaf-to-root path of its stages (Parent IDs)
 * with the largest summed runtime (Completion - Submission), ties to the smaller stage id.
 * Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_mark_critical(const struct clarity_app *const *apps, struct iqcar_result *r, struct clarity_error *err);

/* Analyses the applications together (their hosts are matched by name). Returns 0, or
 * CLARITY_ENOMEM with err filled; free r with iqcar_result_free in every case. */
int clarity_iqcar_analyze(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                  struct iqcar_result *r, struct clarity_error *err);
void clarity_iqcar_result_free(struct iqcar_result *r);
/* clarity_iqcar_analyze in two steps, so a caller that owns the models can give back what the
 * analysis no longer reads: clarity_iqcar_prepare collects the queries, stages, hosts and the
 * task table; after it only the parts outside CLARITY_IQCAR_RELEASABLE are read (the task
 * columns, stage attempts, executors, properties and strings), so the caller may
 * clarity_app_release those, then call clarity_iqcar_build and clarity_iqcar_answers. Same
 * returns as clarity_iqcar_analyze. */
#define CLARITY_IQCAR_RELEASABLE \
    (CLARITY_APP_JOBS | CLARITY_APP_SQLS | CLARITY_APP_RDDS | CLARITY_APP_ACCUMS | CLARITY_APP_TASK_REASONS)
int clarity_iqcar_prepare(const struct clarity_app *const *apps, size_t napps, const struct iqcar_options *opt,
                          struct iqcar_result *r, struct clarity_error *err);
/* Between clarity_iqcar_build and clarity_iqcar_answers: reads from the models the one thing the
 * answers still need of them (the replay's workload: each task's stage and runtime, each
 * stage's job, pool and times, the slots) and frees the task table. Afterwards the analysis,
 * clarity_iqcar_explain and the reports read nothing of the models: the caller may free them.
 * Figures as without it. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_detach(struct iqcar_result *r, struct clarity_error *err);
/* Fills the ranked lists of targets[0..ntargets) (unit indices; NULL: every unit) that do not
 * have them yet: the analysis lists only the victims, which is what the reports show unless a
 * query is named. Returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_explain(struct iqcar_result *r, const long *targets, size_t ntargets, struct clarity_error *err);
/* "stage 3 of q17", "NETWORK of stage 3 (q17)", ...: a node's name (buf of cap bytes). */
const char *clarity_iqcar_node_label(const struct iqcar_result *r, uint32_t node, char *buf, size_t cap);
/* The victim answer's position of every unit (SIZE_MAX: not a victim), into rank[nunits]. */
void clarity_iqcar_victim_ranks(const struct iqcar_result *r, size_t *rank);
/* Source unit s's victims: the cells of its level-6 row with DOR > 0 whose target the victim
 * answer lists (rank from clarity_iqcar_victim_ranks), in that answer's order, into v (room for
 * the row: l6_first[s + 1] - l6_first[s]); returns how many. *runtime_ms, when not NULL, gets
 * their summed runtime. */
struct iqcar_victim_dor { size_t rank, unit; double dor; };
size_t clarity_iqcar_victims_of(const struct iqcar_result *r, const size_t *rank, size_t s, struct iqcar_victim_dor *v,
                                double *runtime_ms);
/* Unit index by name, or -1. */
long clarity_iqcar_unit_find(const struct iqcar_result *r, const char *name);
/* Target t's simple-overlap value from source s (0 when they never overlapped). */
double clarity_iqcar_overlap_of(const struct iqcar_result *r, size_t t, size_t s);
/* The DOR of source query s (IQ_L6_UNKNOWN, IQ_L6_SELF too) toward target t. */
double clarity_iqcar_l6_dor(const struct iqcar_result *r, size_t s, size_t t);
/* The largest number of units running at once: max over units u of the units v with
 * v.start <= u.start < v.end (u itself counting). Returns 0, or -1 when out of memory. */
int clarity_iqcar_max_concurrency(const struct iqcar_unit_info *units, size_t n, int *out);
/* The record of task i (0 <= i < r->ntasks) after clarity_iqcar_collect or by hand. */
void clarity_iqcar_task(const struct iqcar_result *r, size_t i, struct iqcar_task *out);

/* Internal steps, public for the tests. */
/* RATP of every sub-type and resource from a task's waits and data (Table 4). */
void clarity_iqcar_task_ratps(struct iqcar_task *t, struct iqcar_sources *src);
/* Each returns 0, or CLARITY_ENOMEM with err filled. */
int clarity_iqcar_collect(const struct clarity_app *const *apps, size_t napps, struct iqcar_result *r,
                  struct clarity_error *err);
int clarity_iqcar_build(struct iqcar_result *r, struct clarity_error *err);
int clarity_iqcar_answers(struct iqcar_result *r, struct clarity_error *err);

/* Interval join: for every window w and run s with [ws,we) and [rs,re) overlapping (and w != s
 * when same is set), calls fn(ctx, w, s, overlap ms). O(n log n + overlaps). Returns 0, or
 * CLARITY_ENOMEM with err filled. */
typedef void (*iqcar_pair_fn)(void *ctx, size_t w, size_t s, int64_t overlap);
int clarity_iqcar_interval_join(const int64_t *ws, const int64_t *we, size_t nw, const int64_t *rs, const int64_t *re,
                        size_t nr, bool same, iqcar_pair_fn fn, void *ctx, struct clarity_error *err);

#endif
