#!/usr/bin/env python3
# torch-check-cost.py - what the torch reference costs per candidate, call by
# call, outside kevo: loads a torch problem helper (fitness/torchprob_helper.py
# or an older copy) and a KernelBench-style module, allocates the buffers the
# ABI has (as kevo's worker would), then replays the helper calls of one
# candidate's evaluation (check A: gen, gen, reference; check B: the same on
# a second seed; check C: gen, gen) and prints the median milliseconds of
# each call and of the whole sequence over REPS candidates. Needs a GPU.
#   python3 scripts/torch-check-cost.py HELPER.py MODULE.py [REPS] [NAME=V..]
import ctypes, importlib.util, json, os, statistics, sys, tempfile, time

helper_path, mod_path = sys.argv[1], sys.argv[2]
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
sets = dict((kv.split("=")[0], int(kv.split("=")[1])) for kv in sys.argv[4:])
spec = importlib.util.spec_from_file_location("tph", helper_path)
tph = importlib.util.module_from_spec(spec)
spec.loader.exec_module(tph)
import torch

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "desc.json")
    tph.describe(mod_path, mod_path, out, sets)
    desc = json.load(open(out))
if "error" in desc:
    sys.exit("describe: %s" % desc["error"])
code = {"float": 0, "int32": 3, "int64": 4, "bool": 5}
tdt = {0: torch.float32, 3: torch.int32, 4: torch.int64, 5: torch.bool}
bufs, keep, nout = [], [], 0
for b in desc["buffers"]:
    n = 1
    for x in b["shape"]:
        n *= x
    dt = code[b["dtype"]]
    t = torch.empty(max(n, 1), dtype=tdt[dt], device="cuda")
    keep.append(t)
    role = 0 if b["role"] == "in" else 2
    bufs.append((t.data_ptr(), n, dt, role))
    if role:
        nout += n
ref = torch.empty(max(nout, 1), dtype=torch.float64, device="cuda")
err = ctypes.create_string_buffer(1024)
text = open(mod_path).read()
stream = torch.cuda.Stream()  # kevo's stream, for helpers that take one
import inspect
extra = [stream.cuda_stream] if "stream" in \
    inspect.signature(tph.tp_setup).parameters else []
if tph.tp_setup(text, mod_path, sets, 0, ctypes.addressof(err), 1024,
                bufs[0][0], *extra):
    sys.exit("setup: %s" % err.value.decode())


def timed(fn, *a):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    if fn(*a):
        sys.exit("%s: %s" % (fn.__name__, err.value.decode()))
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


calls = {"gen": [], "ref": []}
total = []
for r in range(reps + 2):
    s1, s2 = 1000 + 3 * r, 1001 + 3 * r
    t = []
    for s in (s1, s2):
        t += [("gen", timed(tph.tp_gen, s, bufs)),
              ("gen", timed(tph.tp_gen, s, bufs)),
              ("ref", timed(tph.tp_reference, bufs, ref.data_ptr()))]
    t += [("gen", timed(tph.tp_gen, s1, bufs)),
          ("gen", timed(tph.tp_gen, s1, bufs))]
    if r >= 2:  # two warm-up candidates
        for k, v in t:
            calls[k].append(v)
        total.append(sum(v for _, v in t))
inb = sum(b[1] * keep[i].element_size() for i, b in enumerate(bufs)
          if b[3] == 0)
print("%s %s: inputs %.1f MB, outputs %d elements; per candidate %.2f ms "
      "(gen x6 median %.3f ms, reference x2 median %.3f ms)"
      % (os.path.basename(helper_path), os.path.basename(mod_path), inb / 1e6,
         nout, statistics.median(total), statistics.median(calls["gen"]),
         statistics.median(calls["ref"])))
