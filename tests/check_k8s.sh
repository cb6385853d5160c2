#!/usr/bin/env bash
# deploy/k8s/*.yaml without a cluster: every manifest passes Kubernetes' own schemas in strict mode
# (kubernetes-validate, the OpenAPI schemas of the API versions it bundles: 1.30 and its newest),
# and the manifests agree with each other and with neuroevo: the master is a Job that resumes its
# run directory when it holds a run, the workers a Deployment (or an indexed Job) requesting one
# core per evaluation thread, everyone reaches Redis by its Service's name and port, and every
# password comes from the same Secret. What this cannot check: a real cluster (scheduling, the PVC,
# the image in a registry).
# usage: check_k8s.sh SOURCE_DIR SCRATCH_DIR
set -euo pipefail
SRC=$1
TMP=$2
rm -rf "$TMP" && mkdir -p "$TMP"
command -v kubernetes-validate >/dev/null ||
  { echo "FAIL: kubernetes-validate not found: pip install kubernetes-validate (scripts/install-deps)" >&2; exit 1; }
for v in 1.30 1.37; do
  kubernetes-validate --strict --quiet -k "$v" "$SRC"/deploy/k8s/*.yaml ||
    { echo "FAIL: deploy/k8s does not pass Kubernetes $v's schemas" >&2; exit 1; }
done
echo "ok: deploy/k8s passes the schemas of Kubernetes 1.30 and 1.37 (strict)"
python3 - "$SRC/deploy/k8s" <<'PY'
import glob, os, re, sys, yaml
docs = [d for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.yaml"))) for d in yaml.safe_load_all(open(f)) if d]
kinds = {(d["kind"], d["metadata"]["name"]): d for d in docs}
def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)
def pods(kind):
    return [d for d in docs if d["kind"] == kind]
def containers(d):
    return d["spec"]["template"]["spec"]["containers"]
svc = kinds.get(("Service", "neuroevo-redis")) or fail("no Service neuroevo-redis")
url = "redis://neuroevo-redis:%d" % svc["spec"]["ports"][0]["port"]
# the master: a Job that runs CONFIG or resumes RUN
master = kinds.get(("Job", "neuroevo-master")) or fail("the master is not a Job named neuroevo-master")
m = containers(master)[0]
script = " ".join(m.get("command", []) + m.get("args", []))
env = {e["name"]: e.get("value") for e in m.get("env", [])}
if not ('-f "/runs/$RUN/config.ini"' in script and "neuroevo resume" in script and "neuroevo run" in script):
    fail("the master does not resume its run directory: " + script)
if env.get("NEUROEVO_REDIS_URL") != url:
    fail("the master's Redis URL %r is not the Service's %r" % (env.get("NEUROEVO_REDIS_URL"), url))
if not any(v["mountPath"] == "/runs" for v in m.get("volumeMounts", [])):
    fail("the master's /runs is not a volume: a resumed pod would find nothing")
if master["spec"]["template"]["spec"]["restartPolicy"] not in ("OnFailure", "Never") or master["spec"].get("backoffLimit", 6) < 1:
    fail("a master pod stopped mid-run is not retried")
# the workers: one core per thread
workers = [d for d in pods("Deployment") + pods("Job") if any("worker" in c.get("args", [])[:1] for c in containers(d))]
if not workers:
    fail("no worker Deployment or Job")
for w in workers:
    if w["kind"] == "Job" and w["spec"].get("completionMode") != "Indexed":
        fail("a worker Job that is not indexed")
    for c in containers(w):
        args = c["args"]
        threads = int(args[args.index("--threads") + 1])
        cpu = str(c["resources"]["requests"]["cpu"])
        cores = float(cpu[:-1]) / 1000 if cpu.endswith("m") else float(cpu)
        if cores != threads:
            fail("%s requests %s CPUs for %d threads: one core per thread" % (w["metadata"]["name"], cpu, threads))
        if args[args.index("--redis") + 1] != url:
            fail("%s's Redis URL is not the Service's %s" % (w["metadata"]["name"], url))
# one Secret for every password
refs = set()
for d in docs:
    if d["kind"] in ("Deployment", "Job"):
        for c in containers(d):
            for e in c.get("env", []):
                if e["name"] == "NEUROEVO_REDIS_PASSWORD":
                    r = e["valueFrom"]["secretKeyRef"]
                    refs.add((r["name"], r["key"]))
if len(refs) != 1:
    fail("the Redis password comes from %d places: %s" % (len(refs), refs))
redis = kinds[("Deployment", "neuroevo-redis")]
if "--requirepass" not in containers(redis)[0]["args"]:
    fail("Redis does not require the password")
print("ok: master Job (resumes /runs/$RUN), %d worker set(s) at one core per thread, one Redis URL, one Secret %s" %
      (len(workers), sorted(refs)[0]))
PY
echo "check_k8s: all checks passed"
