# torchprob_helper.py - the Python half of kevo's PyTorch problems
# (fitness/torchprob.c, fitness/torchprob_gpu.c): a KernelBench-style file
# (class Model(nn.Module), get_inputs(), get_init_inputs(), module-level
# int size constants) read, described and run. Embedded in kevo as text.
#
#   describe SRC SHOWN OUT   (no GPU) imports SRC (messages name SHOWN),
#       writes OUT: the kernel ABI (inputs, then parameters and buffers of
#       the module, then forward's outputs, each with dtype and dims as
#       products of the size constants), the sizes and the FLOPs that
#       torch.utils.flop_counter counts. Sizes are found by doubling each
#       module-level int constant and seeing which dims double: a dim is
#       coef * product(sizes) or a literal.
#   tp_* functions: called by the GPU worker through an embedded CPython
#       (torchprob_gpu.c) on kevo's own device buffers, shared with torch
#       through __cuda_array_interface__; errors go back through tp_err.
#
# It never decides a verdict: kevo's harness compares, hashes, guards.
import sys, os, json, math, inspect, traceback, types
from fractions import Fraction

KEVO_DT = {0: "fp32", 1: "fp16", 2: "bf16", 3: "int32", 4: "int64", 5: "bool"}


class TPError(Exception):
    pass


def _where(exc, shown):
    """'shown:line: Type: msg' from the deepest frame inside the file."""
    if isinstance(exc, SyntaxError) and exc.filename == shown:
        return "%s:%s: SyntaxError: %s" % (shown, exc.lineno, exc.msg)
    line = None
    for fr, ln in traceback.walk_tb(exc.__traceback__):
        if fr.f_code.co_filename == shown:
            line = ln
    msg = "%s: %s" % (type(exc).__name__, str(exc).strip().split("\n")[0])
    return "%s:%s: %s" % (shown, line, msg) if line else "%s: %s" % (shown, msg)


def load(src_text, shown, sets=None):
    import torch  # noqa: F401 (a missing torch is reported by the caller)
    mod = types.ModuleType("kevo_torch_problem")
    mod.__file__ = shown
    code = compile(src_text, shown, "exec")
    exec(code, mod.__dict__)
    for name in ("Model", "get_inputs", "get_init_inputs"):
        if name not in mod.__dict__:
            raise TPError("%s: no %s (a KernelBench file defines class "
                          "Model(nn.Module), get_inputs() and "
                          "get_init_inputs())" % (shown, name))
    for k, v in (sets or {}).items():
        mod.__dict__[k] = v
    return mod


def int_consts(mod):
    return {k: v for k, v in mod.__dict__.items()
            if type(v) is int and not k.startswith("_") and v > 0}


def dtype_name(t):
    import torch
    if t.dtype in (torch.float32, torch.float16, torch.bfloat16,
                   torch.float64):
        return "float"
    return {torch.int32: "int32", torch.int64: "int64",
            torch.bool: "bool"}.get(t.dtype)


def as_outputs(o, shown):
    import torch
    outs = list(o) if isinstance(o, (tuple, list)) else [o]
    for i, t in enumerate(outs):
        if not isinstance(t, torch.Tensor):
            raise TPError("%s: forward returned %s as output %d, not a "
                          "tensor" % (shown, type(t).__name__, i))
    return outs


def tensors(mod, shown, device):
    """(inputs, state, outputs, model) with consts as set in mod."""
    import torch
    ctx = torch.device(device) if hasattr(torch, "device") and \
        device != "cpu" else None
    if ctx is not None:
        with ctx:
            return _tensors(mod, shown)
    return _tensors(mod, shown)


def _tensors(mod, shown):
    import torch
    model = mod.Model(*mod.get_init_inputs())
    ins = list(mod.get_inputs())
    for i, t in enumerate(ins):
        if not isinstance(t, torch.Tensor):
            raise TPError("%s: get_inputs() returned %s as input %d, not a "
                          "tensor" % (shown, type(t).__name__, i))
        if dtype_name(t) is None:
            raise TPError("%s: input %d has dtype %s (kevo takes float, "
                          "int32, int64 and bool tensors)" % (shown, i,
                                                                t.dtype))
    state = list(model.named_parameters()) + list(model.named_buffers())
    with torch.no_grad():
        outs = as_outputs(model(*ins), shown)
    for i, t in enumerate(outs):
        if dtype_name(t) is None:
            raise TPError("%s: output %d has dtype %s (kevo takes float, "
                          "int32, int64 and bool tensors)" % (shown, i,
                                                                t.dtype))
    return ins, state, outs, model


def shapes_of(mod, shown, device):
    ins, state, outs, _ = tensors(mod, shown, device)
    return [tuple(t.shape) for t in ins] + \
        [tuple(t.shape) for _, t in state] + [tuple(t.shape) for t in outs]


def pick_device(mod, shown):
    import torch
    try:
        with torch.device("meta"):
            pass
    except Exception:
        return "cpu"  # torch < 2.0: no meta device context
    try:
        shapes_of(mod, shown, "meta")
        return "meta"
    except TPError:
        raise
    except Exception:
        return "cpu"  # data-dependent ops: run at the file's sizes


def derive_dims(mod, shown, device, base):
    """[(name, value)] sizes and per buffer per dim [[size idx...], coef]."""
    consts = int_consts(mod)
    deps = {}  # const name -> set of (buffer, dim)
    for k, v in consts.items():
        mod.__dict__[k] = 2 * v
        try:
            sh = shapes_of(mod, shown, device)
        except Exception:
            sh = None
        finally:
            mod.__dict__[k] = v
        if sh is None or len(sh) != len(base) or \
                any(len(a) != len(b) for a, b in zip(sh, base)):
            continue
        ch = set()
        ok = True
        for bi, (a, b) in enumerate(zip(sh, base)):
            for di, (x, y) in enumerate(zip(a, b)):
                if x == y:
                    continue
                if x != 2 * y:
                    ok = False
                ch.add((bi, di))
        if ok and ch:
            deps[k] = ch
    names = [k for k in consts if k in deps]
    dims = []
    for bi, b in enumerate(base):
        row = []
        for di, y in enumerate(b):
            use = [i for i, k in enumerate(names) if (bi, di) in deps[k]]
            prod = 1
            for i in use:
                prod *= consts[names[i]]
            c = Fraction(y, prod)
            row.append([use, c.numerator, c.denominator])
        dims.append(row)
    return [(k, consts[k]) for k in names], dims


def count_flops(mod, shown, device):
    try:
        from torch.utils.flop_counter import FlopCounterMode
        ins, state, outs, model = None, None, None, None
        import torch
        with torch.device(device):
            model = mod.Model(*mod.get_init_inputs())
            ins = list(mod.get_inputs())
        with FlopCounterMode(display=False) as fc, torch.no_grad():
            model(*ins)
        return float(fc.get_total_flops())
    except Exception:
        return None


def describe(src_path, shown, out_path, sets):
    try:
        with open(src_path) as f:
            text = f.read()
        mod = load(text, shown, sets)
        device = pick_device(mod, shown)
        ins, state, outs, model = tensors(mod, shown, device)
        base = [tuple(t.shape) for t in ins] + \
            [tuple(t.shape) for _, t in state] + [tuple(t.shape) for t in outs]
        sizes, dims = derive_dims(mod, shown, device, base)
        try:
            pnames = list(inspect.signature(mod.Model.forward).parameters)[1:]
        except (TypeError, ValueError):
            pnames = []
        bufs = []
        for i, t in enumerate(ins):
            nm = pnames[i] if i < len(pnames) and \
                pnames[i].isidentifier() else "in%d" % i
            bufs.append({"name": nm, "role": "in", "dtype": dtype_name(t)})
        for nm, t in state:
            bufs.append({"name": nm.replace(".", "_"), "role": "in",
                         "dtype": dtype_name(t), "state": nm})
        for i, t in enumerate(outs):
            bufs.append({"name": "out" if len(outs) == 1 else "out%d" % i,
                         "role": "out", "dtype": dtype_name(t)})
        for b, row, sh in zip(bufs, dims, base):
            b["dims"] = row
            b["shape"] = list(sh)
        res = {"sizes": [[k, v] for k, v in sizes], "buffers": bufs,
               "flops": count_flops(mod, shown, device), "device": device}
    except TPError as e:
        res = {"error": str(e)}
    except ImportError as e:
        if getattr(e, "name", "") == "torch":
            res = {"error": "no_torch"}
        else:
            res = {"error": _where(e, shown)}
    except BaseException as e:  # the module's own errors, with file:line
        res = {"error": _where(e, shown)}
    with open(out_path, "w") as f:
        json.dump(res, f)


# ---------------------------------------------------------------- GPU side
# One problem per worker: tp_setup() loads the file, the other calls use
# the kevo buffers whose addresses each call passes (they do not move).
TP = {}


def tp_err(msg):
    import ctypes
    b = msg.encode()[:TP["errcap"] - 1] + b"\0"
    ctypes.memmove(TP["err"], b, len(b))


def _guard(fn):
    def run(*a):
        try:
            fn(*a)
            return 0
        except BaseException as e:
            tp_err(str(e) if isinstance(e, TPError) else _where(e, TP["shown"]))
            TP["rc"] = 1
            return 1
    return run


class _CAI:
    def __init__(self, ptr, n, typestr):
        self.__cuda_array_interface__ = {
            "shape": (n,), "typestr": typestr, "data": (ptr, False),
            "version": 2, "strides": None}


def _view(ptr, n, dt):
    """A flat tensor over kevo's buffer (ptr, n elements, kevo dtype dt);
    made once per (ptr, n, dt): the buffers do not move, a pristine copy
    reallocated at the same address is the same memory again."""
    import torch
    views = TP.setdefault("views", {})
    key = (ptr, n, dt)
    t = views.get(key)
    if t is not None:
        return t
    code = {0: ("<f4", None), 1: ("<f2", None), 2: ("<i2", torch.bfloat16),
            3: ("<i4", None), 4: ("<i8", None), 5: ("|u1", torch.bool),
            9: ("<f8", None)}[dt]
    t = torch.as_tensor(_CAI(ptr, n, code[0]), device="cuda")
    t = t.view(code[1]) if code[1] is not None else t
    if len(views) > 256:
        views.clear()
    views[key] = t
    return t


def _on_kevo_stream():
    """torch's work of a check goes on kevo's stream (tp_setup's), so it is
    ordered with the candidate's launches without a device-wide sync."""
    import torch
    return torch.cuda.stream(TP["stream"])


def tp_setup(text, shown, sizes, run_dt, err_addr, errcap, buf0, stream=0):
    """buf0: a kevo buffer: its device is the worker's (torch reads it from
    the pointer), so torch runs on the GPU kevo opened; stream: kevo's
    stream (a CUstream), where draws and references are enqueued."""
    TP.clear()
    TP.update(err=err_addr, errcap=errcap, shown=shown, rc=0)

    @_guard
    def go():
        import torch
        torch.cuda.set_device(torch.as_tensor(_CAI(buf0, 1, "<f4")).device)
        TP["stream"] = torch.cuda.ExternalStream(stream) if stream else \
            torch.cuda.current_stream()
        torch.backends.cuda.matmul.allow_tf32 = False  # fp32 is fp32
        torch.backends.cudnn.allow_tf32 = False
        TP["mod"] = load(text, shown, sizes)
        TP["run"] = {0: torch.float32, 1: torch.float16,
                     2: torch.bfloat16}[run_dt]
    return go()


def _build(seed, inputs=True):
    """The module built under seed and, with inputs, get_inputs() drawn
    after it (as every draw does); without, only the input shapes the
    last draw had (a reference reads its inputs from kevo's buffers, so
    drawing them again would only cost time)."""
    import torch
    mod = TP["mod"]
    torch.manual_seed(seed)
    with torch.device("cuda"):
        model = mod.Model(*mod.get_init_inputs())
        ins = [t.cuda() for t in mod.get_inputs()] if inputs else None
    state = list(model.named_parameters()) + list(model.named_buffers())
    if ins is not None:
        TP["in_shapes"] = [t.shape for t in ins]
    return model, ins, state


def _check_n(i, t, n):
    if t.numel() != n:
        raise TPError("%s: tensor %d has %d elements at this shape, the "
                      "ABI expects %d (do its sizes follow the module-level "
                      "constants?)" % (TP["shown"], i, t.numel(), n))


def tp_gen(seed, bufs):
    """bufs: [(ptr, n, kevo dtype, role)]: inputs then state first. The
    draw is enqueued on kevo's stream: what kevo launches next reads it."""
    @_guard
    def go():
        with _on_kevo_stream():
            _draw(seed, bufs)
    return go()


def _draw(seed, bufs):
    """The module's inputs and state under seed into kevo's input buffers
    (on torch's current stream)."""
    model, ins, state = _build(seed)
    for i, t in enumerate(ins + [t for _, t in state]):
        ptr, n, dt, _ = bufs[i]
        _check_n(i, t, n)
        _view(ptr, n, dt).copy_(t.detach().reshape(-1))


def _load_model(bufs, dtype, seed=0):
    """The module with its state and its inputs read from kevo's buffers,
    floats as dtype, integers and bools kept."""
    import torch
    model, _, state = _build(seed, inputs="in_shapes" not in TP)
    shapes = TP["in_shapes"]
    live = []
    for i in range(len(shapes) + len(state)):
        ptr, n, dt, _ = bufs[i]
        v = _view(ptr, n, dt)
        shape = shapes[i] if i < len(shapes) else \
            state[i - len(shapes)][1].shape
        v = v.view(shape)
        live.append(v.to(dtype) if v.is_floating_point() else v)
    nin = len(shapes)
    with torch.no_grad():
        for (nm, t), v in zip(state, live[nin:]):
            holder = model
            parts = nm.split(".")
            for p in parts[:-1]:
                holder = getattr(holder, p)
            if isinstance(t, torch.nn.Parameter):
                setattr(holder, parts[-1], torch.nn.Parameter(
                    v.clone(), requires_grad=False))
            else:
                setattr(holder, parts[-1], v.clone())
    return model, live[:nin]


def _forward(model, ins):
    import torch
    with torch.no_grad():
        return as_outputs(model(*ins), TP["shown"])


def tp_reference(bufs, ref_addr):
    """The fp64 outputs into ref_addr, enqueued on kevo's stream (kevo
    syncs it before comparing)."""
    @_guard
    def go():
        import torch
        with _on_kevo_stream():
            model, ins = _load_model(bufs, torch.float64)
            outs = _forward(model, ins)
            _write_ref(bufs, outs, ref_addr)
    return go()


def _out_slots(bufs):
    return [b for b in bufs if b[3] != 0]


def _write_ref(bufs, outs, ref_addr):
    slots = _out_slots(bufs)
    if len(outs) != len(slots):
        raise TPError("%s: forward returned %d outputs, the ABI has %d"
                      % (TP["shown"], len(outs), len(slots)))
    off = 0
    for i, (o, (_, n, _, _)) in enumerate(zip(outs, slots)):
        _check_n(i, o, n)
        _view(ref_addr + off * 8, n, 9).copy_(o.reshape(-1).double())
        off += n


def _host(addr, vals):
    import ctypes
    (ctypes.c_double * len(vals)).from_address(addr)[:] = vals


EPS = {0: 2.0 ** -23, 1: 2.0 ** -10, 2: 2.0 ** -7}


def check_stable(r1, r2, shown):
    """Two fp64 runs on the same inputs: finite (checked first: NaN is
    never equal to itself) and bitwise equal, else TPError naming shown."""
    import torch
    for i, (a, b) in enumerate(zip(r1, r2)):
        if a.is_floating_point() and not bool(torch.isfinite(a).all()):
            raise TPError("%s: the fp64 module's output %d is not finite "
                          "(NaN or Inf) on kevo's inputs" % (shown, i))
        if not torch.equal(a, b):
            raise TPError("%s: the fp64 module disagrees with itself: two "
                          "runs on the same inputs differ in output %d (a "
                          "random op in forward, or atomics such as "
                          "index_add_ on the GPU); the reference must be "
                          "deterministic" % (shown, i))


def _fp64_twice(bufs):
    """The fp64 module twice on the inputs in bufs, the random generator
    seeded differently before each forward (so a random op inside forward
    shows), checked by check_stable; returns the first run's outputs."""
    import torch
    runs = []
    for s in (101, 202):
        m, i = _load_model(bufs, torch.float64)
        torch.manual_seed(s)
        runs.append(_forward(m, i))
        del m, i  # the fp64 inputs: GBs for KernelBench's big modules
    check_stable(runs[0], runs[1], TP["shown"])
    return runs[0]


CHUNK = 1 << 24  # elements a calibration step holds in fp64 at once


def _flat_chunks(a, b):
    """(a, b) as matching flat slices of at most CHUNK elements, each as
    fp64: the error of a 2^31-element output needs no 17 GB temporaries
    (KernelBench's 38_L1Norm_ ran out of memory on an H200 without)."""
    fa, fb = a.reshape(-1), b.reshape(-1)
    for i in range(0, fa.numel(), CHUNK):
        yield fa[i:i + CHUNK].double(), fb[i:i + CHUNK].double()


def _used(a, b, atol, rtol):
    """max |b - a| / (atol + rtol |a|): the share of the tolerance used."""
    import torch
    worst = 0.0
    for ca, cb in _flat_chunks(a, b):  # integer and bool outputs too
        e = (cb - ca).abs()
        tol = atol + rtol * ca.abs()
        r = torch.where(tol > 0, e / tol.clamp_min(1e-300),
                        torch.where(e > 0, torch.full_like(e, float("inf")),
                                    torch.zeros_like(e)))
        r = torch.where(torch.isnan(r), torch.full_like(r, float("inf")), r)
        worst = max(worst, float(r.max()))
    return worst


def _err_rms(a, b):
    """(max |b - a|, rms of a) over flat chunks."""
    worst, sq = 0.0, 0.0
    for ca, cb in _flat_chunks(a, b):
        worst = max(worst, float((cb - ca).abs().max()))
        sq += float(ca.pow(2).sum())
    return worst, (sq / a.numel()) ** 0.5


def calibrate_outputs(pairs, n_seeds, margin, eps, given):
    """Each output's own tolerance from torch's own error on it:
    pairs(k, seed_index) gives [(fp64 reference, run-dtype result)] of
    every output (k counts the calls: 0 is the first, so it may check the
    reference); given[i] is (atol, rtol) the user gave output i, or None.
    A floating output gets atol = margin * its worst |error| + eps * its
    rms, rtol = margin * eps (its own scale, not the largest output's: one
    pair for all lets a wrong small output pass); an integer or bool one
    is exact (0, 0). Returns [[atol, rtol, share of it torch's own result
    uses, share of the given one (0 when none)]] per output."""
    # two passes, one seed's outputs alive at a time: a module whose
    # tensors take GBs must not hold every seed's results at once
    worst, rms, exact = [], [], []
    for s in range(n_seeds):
        for i, (a, b) in enumerate(pairs(s, s)):
            if i == len(worst):
                worst.append(0.0)
                rms.append(0.0)
                exact.append(not a.is_floating_point())
            if exact[i] or not a.numel():
                continue
            w, r = _err_rms(a, b)
            worst[i] = max(worst[i], w)
            rms[i] = max(rms[i], r)
    tols = []
    for i in range(len(worst)):
        if exact[i]:
            tols.append((0.0, 0.0))
            continue
        atol = margin * worst[i] + eps * rms[i]
        tols.append((atol if atol > 0 else eps, margin * eps))
    res = [[t[0], t[1], 0.0, 0.0] for t in tols]
    for s in range(n_seeds):
        for i, (a, b) in enumerate(pairs(n_seeds + s, s)):
            res[i][2] = max(res[i][2], _used(a, b, *tols[i]))
            if i < len(given) and given[i] is not None:
                res[i][3] = max(res[i][3], _used(a, b, *given[i]))
    return res


def tp_selfcheck_calibrate(bufs, seeds, margin, given, out_addr):
    """The fp64 reference twice (bitwise equal, finite), then each
    output's tolerance from how far torch's own result in the run dtype is
    from it over seeds (calibrate_outputs): writes its four numbers per
    output at out_addr."""
    @_guard
    def go():
        import torch

        def pairs(k, s):
            """(fp64 reference, run-dtype result) of each output on the
            inputs of seeds[s]; the first call checks the reference."""
            tp_gen_inner(seeds[s], bufs)
            if k == 0:
                r1 = _fp64_twice(bufs)
            else:
                m64, i64 = _load_model(bufs, torch.float64)
                r1 = _forward(m64, i64)
                del m64, i64  # fp64 inputs: GBs for the big modules
            mr, ir = _load_model(bufs, TP["run"])
            return list(zip(r1, _forward(mr, ir)))

        eps = EPS[{torch.float32: 0, torch.float16: 1,
                   torch.bfloat16: 2}[TP["run"]]]
        res = calibrate_outputs(pairs, len(seeds), margin, eps, given)
        torch.cuda.empty_cache()  # kevo allocates after this, not torch
        _host(out_addr, [x for r in res for x in r])
    return go()


def tp_gen_inner(seed, bufs):
    """tp_gen for the calibration: on the default stream, synchronized."""
    import torch
    _draw(seed, bufs)
    torch.cuda.synchronize()


def _note(addr, cap, text):
    import ctypes
    b = text.encode()[:cap - 1] + b"\0"
    ctypes.memmove(addr, b, len(b))


def compile_or_skip(model, run_once, mode, limit_s, compile_fn=None,
                    clock=None):
    """torch.compile(model, mode) run once through run_once(cm) (which
    compiles it): (compiled or None, status, seconds, note). status: 1
    compiled within limit_s, 0 mode "off", -1 the compile failed, -2 it
    took longer than limit_s. Never raises for the compile's own errors:
    a compile that fails or takes too long is reported and skipped."""
    import time
    if mode == "off":
        return None, 0, 0.0, "torch.compile off (KEVO_TORCH_COMPILE=off)"
    clock = clock or time.monotonic
    t0 = clock()
    try:
        import torch
        fn = compile_fn or torch.compile
        cm = fn(model, mode=mode)
        run_once(cm)
    except Exception as e:
        msg = (str(e).strip().split("\n") or [""])[0]
        return None, -1, clock() - t0, \
            "torch.compile(mode='%s') failed (%s: %s): compile baseline " \
            "skipped" % (mode, type(e).__name__, msg[:120])
    took = clock() - t0
    if took > limit_s:
        return None, -2, took, "torch.compile(mode='%s') took %.1f s, over " \
            "KEVO_TORCH_COMPILE_LIMIT_S=%g: compile baseline skipped" \
            % (mode, took, limit_s)
    return cm, 1, took, ""


def tp_prepare(bufs, mode, limit_s, stream, note_addr, notecap, out_addr):
    """Builds the module in the run dtype on kevo's inputs (views of its
    buffers, so later draws are what it reads) and its torch.compile
    (mode), both to be called on kevo's stream (tp_call): writes
    [compile status as compile_or_skip's, compile seconds]."""
    @_guard
    def go():
        import torch
        s = torch.cuda.ExternalStream(stream)
        model, ins = _load_model(bufs, TP["run"])

        def on_stream(m):
            def run():
                with torch.cuda.stream(s), torch.no_grad():
                    m(*ins)
            return run
        calls = [on_stream(model)]

        def once(cm):
            on_stream(cm)()
            s.synchronize()
        cm, status, took, note = compile_or_skip(model, once, mode, limit_s)
        if cm is not None:
            calls.append(on_stream(cm))
        TP.update(calls=calls, stream=s)
        _note(note_addr, notecap, note)
        _host(out_addr, [float(status), took])
    return go()


def tp_call(k):
    """One call of prepared baseline k (0 eager, 1 compiled), enqueued on
    kevo's stream; kevo's timer times it."""
    @_guard
    def go():
        TP["calls"][k]()
    return go()


def tp_wall(k, out_addr, reps=30):
    """The CUDA-event time around one call of baseline k on kevo's stream
    (launch and guard overhead included), median of reps after a flush."""
    @_guard
    def go():
        import torch
        s = TP["stream"]
        l2_bytes = getattr(torch.cuda.get_device_properties(
            torch.cuda.current_device()), "L2_cache_size", 64 << 20)
        if "flush" not in TP:
            TP["flush"] = torch.empty(max(2 * l2_bytes, 64 << 20) // 4,
                                      dtype=torch.float32, device="cuda")
            TP["flush"].fill_(1.0)
        fn = TP["calls"][k]
        for _ in range(3):
            fn()
        ts = []
        for _ in range(reps):
            with torch.cuda.stream(s):
                TP["flush"].sum()  # read 2x L2 before each rep
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
            fn()
            with torch.cuda.stream(s):
                b.record()
            b.synchronize()
            ts.append(a.elapsed_time(b) * 1e6)
        ts.sort()
        _host(out_addr, [ts[len(ts) // 2]])
    return go()


if __name__ == "__main__" and len(getattr(sys, "argv", [])) >= 5 and \
        sys.argv[1] == "describe":
    sets = {}
    for kv in sys.argv[5:]:
        k, v = kv.split("=", 1)
        sets[k] = int(v)
    describe(sys.argv[2], sys.argv[3], sys.argv[4], sets)
