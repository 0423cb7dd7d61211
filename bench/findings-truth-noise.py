#!/usr/bin/env python3
"""How far the ground truth of bench/findings-eval.py moves for an unrelated change (fnd20).

For every scored run of a kept evaluation set (EVAL_DIR with its details.json), the knob run and
its counterpart are simulated again with every task's CPU work x1.001 (`synth --cpu-scale
1.001`), and the true saving is computed again. Prints the runs whose truth moved by more than
5% and, per kind, the median / p90 / max of |moved| / true. synth itself is deterministic (the
same options give the same files), so this measures how much the truth depends on the schedule,
not on the fault. Scored runs only (true saving >= 2% of the run and 1 s); idle_executors,
tiny_tasks and spill are left out (their truths come from other re-runs or from the GC).
Results: docs/findings-rounds.md "The ground truth's noise". Since fnd22 the scorer's truth is itself the
median over the runs as they are and with CPU work x1.001 and x0.999 (TRUTH_PERTS in
findings-eval.py); this script measures one run's noise: keep a set scored with TRUTH_PERTS=1
for it to compare against the unperturbed truth.
   python3 bench/findings-truth-noise.py EVAL_DIR "SEEDS" [CLARITY]    (work in /tmp/tn-<set>)
"""
import sys, json, os, importlib.util, statistics
setdir, seeds = sys.argv[1], sys.argv[2]
binary = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build', 'clarity')
os.environ['CLARITY']=binary; os.environ['REUSE']='1'; os.environ['CODEC']='zstd'
sys.argv=['x', '/tmp/tn-'+os.path.basename(os.path.normpath(setdir)), seeds]
spec=importlib.util.spec_from_file_location('fe', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'findings-eval.py')); fe=importlib.util.module_from_spec(spec); spec.loader.exec_module(fe)
os.makedirs(fe.WORK, exist_ok=True)
det=json.load(open(os.path.join(setdir,'details.json')))
import concurrent.futures as cf
def one(r):
    kind, wl, s = r['kind'], r['workload'], r['seed']
    if kind in ('idle_executors','tiny_tasks','spill') or 'true_saving' not in r: return None
    if r['true_saving'] < 0.02*r['clean_runtime_ms'] or r['true_saving']<1000: return None
    pert=['--cpu-scale','1.001']
    if kind in fe.FIX: cl=fe.synth('fix-%s-%s-%d'%(kind,wl,s), wl, s, fe.BASE.get(kind,[])+fe.FIX[kind](s)+pert)
    else: cl=fe.synth('clean-%s-%d'%(wl,s), wl, s, fe.BASE.get(kind,[])+pert)
    # the clean run un-perturbed (for the knob options that read it)
    c0=fe.synth('c0-%s-%d'%(wl,s), wl, s, list(fe.BASE.get(kind,[])))
    opts=fe.KNOB_WL.get((kind,wl), fe.KNOBS[kind][1]); extra=opts(s,c0) if callable(opts) else list(opts)
    kn=fe.synth('%s-%s-%d'%(kind,wl,s), wl, s, fe.BASE.get(kind,[])+extra+pert)
    t2=kn['runtime_ms']-cl['runtime_ms']
    return (kind,wl,s,r['true_saving'],t2,r['est_saving'])
rows=[x for x in cf.ThreadPoolExecutor(2).map(one, det['runs']) if x]
by={}
for k,wl,s,t1,t2,e in rows:
    d=abs(t2-t1)/t1
    by.setdefault(k,[]).append(d)
    if d>0.05: print('%s/%s/%d true %d -> %d (%+.0f%%) est %d err %+.0f%% / %+.0f%%'%(k,wl,s,t1,t2,100*(t2-t1)/t1,e,100*(e-t1)/t1,100*(e-t2)/t2))
for k,v in by.items():
    v=sorted(v); print('%s: n %d, |true move| median %.1f%% p90 %.1f%% max %.1f%%'%(k,len(v),100*statistics.median(v),100*v[min(len(v)-1,int(.9*len(v)))],100*v[-1]))
