#!/usr/bin/env python3
"""torch-versions.py - checks one `kevo export --format torch` folder
against the torch this python imports (scripts/torch-versions.sh runs it
per export and per python).

Without a CUDA device it checks all that needs none: the ModelNew file and
the op's module import on a machine without a driver, register the op
with the schema of the kernel's inputs and outputs, load no library and
touch no device; the fake implementation gives the reference's output
shapes and dtypes for CUDA fake tensors and refuses what the kernel cannot
take; make_fx, torch.export (static and with a Dim per size) and
torch.compile(fullgraph=True) with a graph-recording backend and
aot_eager trace graphs that hold the op; inductor goes as far as it can
(STOP says where it stopped and why). With a device it also runs the op
against torch, under torch.library.opcheck and inside an inductor-compiled
model. Warnings raised by the export's own code are failures.

Prints PASS/FAIL/STOP/NOTE lines; exits 1 on any FAIL.

usage: scripts/torch-versions.py EXPORT_DIR
"""
import glob
import importlib.util
import inspect
import os
import sys
import traceback
import warnings

RESULTS = {"PASS": 0, "FAIL": 0, "STOP": 0}


def say(kind, what, detail=""):
    RESULTS[kind] = RESULTS.get(kind, 0) + 1
    print("%s %s%s" % (kind, what, ": " + detail if detail else ""), flush=True)


def check(what, cond, detail=""):
    say("PASS" if cond else "FAIL", what, detail)
    return cond


def first_line(e):
    s = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, s[0] if s else "")


def where(e):
    """The innermost torch frame of e's traceback and the last frame of
    another torch file that led to it: 'file:line in fn <- file:...'."""
    frames = [f for f in traceback.extract_tb(e.__traceback__)
              if "%storch%s" % (os.sep, os.sep) in f.filename]
    if not frames:
        return "?"
    show = [frames[-1]] + [f for f in frames if f.filename != frames[-1].filename][-1:]
    return " <- ".join("%s:%d in %s" % (f.filename.split(os.sep + "torch" + os.sep)[-1],
                                        f.lineno, f.name) for f in show)


def mapped():
    """The files this process has mapped (its loaded libraries)."""
    with open("/proc/self/maps") as f:
        return f.read()


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def references(torch):
    """torch's own computation of each problem kevo ships an export test
    for, in the inputs' dtype: gives the expected outputs (their shapes and
    dtypes under fake tensors, their values on a device)."""
    return {
        "gemm": lambda a, b: (a @ b,),
        "softmax": lambda x: (torch.softmax(x, -1),),
        "cumsum": lambda x: (torch.cumsum(x, 1),),
        "pair": lambda x, g: (x * g, x + g),
    }


def as_tuple(y):
    return tuple(y) if isinstance(y, (tuple, list)) else (y,)


def shape_of(kx, dims, sizes):
    """A buffer's shape for sizes (its dims as the export's _dim reads
    them: a size, a literal or (num, den, sizes)); FIXED sizes stay."""
    n = dict(sizes)
    n.update(kx.FIXED)
    return [kx._dim(d, n) for d in dims]


class ModuleRef:
    """A PyTorch problem's own Model (the export's verbatim copy,
    <base>_reference.py) as the reference of the op: forward inputs, then
    the state, in the op's order; the module's size constants set to the
    sizes of the call."""

    def __init__(self, torch, kx, ref):
        self.torch, self.kx, self.ref = torch, kx, ref
        self.names = [b[4] for b in kx.INPUTS if b[4]]
        self.nf = len(kx.INPUTS) - len(self.names)

    def __call__(self, xs, sizes):
        """Model's outputs for the op's inputs xs: the module built on the
        meta device (no memory), every parameter and buffer from xs."""
        from torch.func import functional_call
        saved = {k: self.ref.__dict__[k] for k in sizes}
        self.ref.__dict__.update(sizes)
        try:
            with self.torch.device("meta"):
                m = self.ref.Model(*self.ref.get_init_inputs())
            with self.torch.no_grad():
                return as_tuple(functional_call(m, dict(zip(self.names, xs[self.nf:])),
                                                tuple(xs[:self.nf])))
        finally:
            self.ref.__dict__.update(saved)


def main(out_dir):
    pys = [p for p in glob.glob(os.path.join(out_dir, "kevo_*.py"))
           if not p.endswith(("_kernelbench.py", "_reference.py"))]
    if len(pys) != 1:
        print("FAIL %s: want one kevo_<problem>.py, found %d" % (out_dir, len(pys)))
        return 1
    py = pys[0]
    kb_py = py[:-3] + "_kernelbench.py"
    caught = []
    warnings.simplefilter("always")
    old_show = warnings.showwarning
    warnings.showwarning = lambda m, c, f, l, *a: caught.append((c, str(m), f, l))
    try:
        return run_checks(py, kb_py, caught)
    finally:
        warnings.showwarning = old_show


def run_checks(py, kb_py, caught):
    import torch
    print("== %s with torch %s (python %s), CUDA device: %s"
          % (os.path.basename(py), torch.__version__, sys.version.split()[0],
             "yes" if torch.cuda.is_available() else "none"), flush=True)
    if not hasattr(torch.library, "custom_op"):
        for what, path in (("the op's module", py), ("ModelNew", kb_py)):
            try:
                load(path, "kx")
                check("import of %s on torch < 2.4 fails" % what, False, "it succeeded")
            except ImportError as e:
                check("import of %s on torch < 2.4 fails with a clear ImportError" % what,
                      "needs torch >= 2.4" in str(e) and torch.__version__ in str(e), str(e))
        return 1 if RESULTS["FAIL"] else 0

    # 1. import: ModelNew first (registers the op), then the op's module
    # (finds it registered: the same op)
    try:
        kb = load(kb_py, "kb")
        kx = load(py, "kx")
    except Exception as e:
        check("import of the op and ModelNew", False, first_line(e))
        return 1
    opdot = kx.OP_NAME.replace("::", ".")
    packet = getattr(getattr(torch.ops, "kevo"), kx.OP_NAME.split("::")[1], None)
    check("import registers torch.ops.%s; ModelNew and the op's module share it" % opdot,
          packet is not None and kx.op is packet and kb._kevo.op is packet)
    maps = mapped()
    check("import loads no library and touches no device",
          kx.LIB not in maps and not torch.cuda.is_initialized(),
          "%s mapped: %s, CUDA initialised: %s" % (kx.LIB, kx.LIB in maps,
                                                  torch.cuda.is_initialized()))
    for fn in (torch.library.custom_op, torch.library.register_fake):
        say("NOTE", "torch.library.%s(%s)" % (fn.__name__, ", ".join(
            str(p).split(":")[0] for p in inspect.signature(fn).parameters.values())))

    # 2. the schema: the kernel's inputs by name, one Tensor per output
    schema = packet.default._schema
    want_args = list(inspect.signature(kx._impl).parameters)
    args = [a.name for a in schema.arguments]
    types = {str(a.type) for a in schema.arguments} | {str(r.type) for r in schema.returns}
    check("schema %s" % schema, args == want_args and types == {"Tensor"}
          and len(schema.returns) == len(kx.OUTPUTS) and not schema.is_mutable,
          "want (%s) -> %d Tensor(s)" % (", ".join(want_args), len(kx.OUTPUTS)))

    # 3. the fake implementation under FakeTensorMode, CUDA fake tensors
    from torch._subclasses.fake_tensor import FakeTensorMode
    kb_ref = getattr(kb, "_ref", None)  # a PyTorch problem: its own Model
    if kb_ref is not None:
        mref = ModuleRef(torch, kx, kb_ref)
        ref = lambda xs, sizes: mref(xs, sizes)
    else:
        f = references(torch).get(kx.PROBLEM)
        ref = (lambda xs, sizes: f(*xs)) if f is not None else None
    if ref is None:
        say("NOTE", "no torch reference for problem %s: outputs are checked "
            "against the export's own tables" % kx.PROBLEM)
    mode = FakeTensorMode()
    odd = {k: max(2, v * 3 // 4 + 1) for k, v in kx.SHAPE.items() if k not in kx.FIXED}
    say("NOTE", "buffers %s" % ", ".join("%s %s %s%s" % (b[0], str(b[2]).split(".")[-1], list(b[3]),
                                                       " (%s)" % b[4] if b[4] else "")
                                         for b in kx.BUFFERS))

    def fake_inputs(sizes):
        with mode:
            return [torch.empty(shape_of(kx, dims, sizes), dtype=dt, device="cuda")
                    for (_, _, dt, dims, _) in kx.INPUTS]

    def expected(xs, sizes):
        if ref is not None:
            with mode:
                return [(tuple(t.shape), t.dtype) for t in ref(xs, sizes)]
        return [(tuple(shape_of(kx, dims, sizes)), dt) for (_, _, dt, dims, _) in kx.OUTPUTS]

    def got(ys):
        return [(tuple(t.shape), t.dtype) for t in as_tuple(ys)]

    for label, sizes in (("run shape", kx.SHAPE), ("awkward shape", odd)):
        xs = fake_inputs(sizes)
        try:
            with mode:
                ys = kx.op(*xs)
            ok = got(ys) == expected(xs, sizes) and all(
                t.device.type == "cuda" for t in as_tuple(ys))
            check("fake op at the %s %s" % (label, sizes), ok,
                  "outputs %s, want %s" % (got(ys), expected(xs, sizes)))
        except Exception as e:
            check("fake op at the %s" % label, False, first_line(e))
    xs = fake_inputs(kx.SHAPE)
    wrong = torch.float16 if xs[0].dtype != torch.float16 else torch.float32
    import logging
    logging.getLogger("torch._subclasses.fake_tensor").setLevel(logging.CRITICAL)  # (it logs
    # every exception a fake implementation raises, with its traceback)
    for i, b in enumerate(kx.INPUTS):  # an int or bool input takes a float
        if not b[2].is_floating_point:
            with mode:
                bad = xs[:i] + [torch.empty(xs[i].shape, dtype=kx.RUN_DTYPE, device="cuda")] + xs[i + 1:]
            try:
                with mode:
                    kx.op(*bad)
                check("the fake refuses a float for %s input %s" % (b[2], b[0]), False, "no error")
            except TypeError as e:
                check("the fake refuses a float for %s input %s" % (b[2], b[0]),
                      b[0] in str(e) and str(b[2]) in str(e), first_line(e))
    from collections import Counter
    occ = Counter(d for b in kx.INPUTS for d in b[3] if isinstance(d, str))
    for i, b in enumerate(kx.INPUTS):  # a dim another dim must equal, one too big
        for k, d in enumerate(b[3]):
            if isinstance(d, str) and occ[d] == 1:
                continue  # it alone gives its size: any value is right
            shape = list(xs[i].shape)
            shape[k] += 1
            with mode:
                bad = xs[:i] + [torch.empty(shape, dtype=xs[i].dtype, device="cuda")] + xs[i + 1:]
            try:
                with mode:
                    kx.op(*bad)
                check("the fake refuses %s.shape[%d] one too big" % (b[0], k), False, "no error")
            except ValueError as e:
                check("the fake refuses %s.shape[%d] one too big" % (b[0], k),
                      kx.BASE in str(e) and "shape[" in str(e), first_line(e))
    refusals = [("a CPU tensor", ValueError, lambda: [torch.empty(xs[0].shape, dtype=xs[0].dtype)]),
                ("a wrong dtype", TypeError, lambda: [torch.empty(xs[0].shape, dtype=wrong, device="cuda")]),
                ("a wrong rank", ValueError, lambda: [xs[0].unsqueeze(0)])]
    for what, exc, first in refusals:
        try:
            with mode:
                kx.op(*(first() + xs[1:]))
            check("the fake refuses %s" % what, False, "no error")
        except exc as e:
            check("the fake refuses %s" % what, kx.BASE in str(e), first_line(e))
        except Exception as e:
            check("the fake refuses %s" % what, False, "want %s, got %s" % (exc.__name__, first_line(e)))
    try:
        kx.op(*[torch.zeros(shape_of(kx, dims, kx.SHAPE), dtype=dt) for (_, _, dt, dims, _) in kx.INPUTS])
        check("the op on CPU tensors is refused", False, "no error")
    except ValueError as e:
        check("the op on CPU tensors is refused before any device or library is needed",
              "CUDA device" in str(e) and kx.LIB not in mapped(), first_line(e))

    # 4. graphs: make_fx, torch.export, torch.compile
    class Wrap(torch.nn.Module):
        """the op between torch ops"""

        def forward(self, *xs):
            return tuple(t * 2 if t.is_floating_point() else t.clone() for t in as_tuple(kx.op(*xs)))

    def has_op(gm):
        return any(str(n.target).startswith(opdot) for n in gm.graph.nodes
                   if n.op == "call_function")

    from torch.fx.experimental.proxy_tensor import make_fx
    try:
        gm = make_fx(lambda *a: Wrap()(*a), tracing_mode="fake")(*xs)
        check("make_fx(tracing_mode='fake') traces the op", has_op(gm))
    except Exception as e:
        check("make_fx(tracing_mode='fake')", False, first_line(e))
    from torch.export import Dim
    dims = {d: Dim(d) for d in kx.SIZES}
    dyn = (tuple({k: dims[d] for k, d in enumerate(ddims) if isinstance(d, str)}
                 for (_, _, _, ddims, _) in kx.INPUTS),)
    nf = sum(1 for b in kx.INPUTS if not b[4])  # ModelNew's forward inputs

    def model_new():
        if kb_ref is None:
            return kb.ModelNew()
        with mode, torch.device("cuda"):  # its state: fake CUDA tensors
            return kb.ModelNew(*kb_ref.get_init_inputs())

    if kb_ref is not None:
        try:
            mn = model_new()
            with mode:
                gm = make_fx(lambda *a: mn(*a), tracing_mode="fake")(*xs[:nf])
            check("make_fx of ModelNew traces the op", has_op(gm))
        except Exception as e:
            check("make_fx of ModelNew", False, "%s at %s" % (first_line(e), where(e)))
        seeds_ok = True
        for seed in (0, 1234):
            torch.manual_seed(seed)
            m = kb_ref.Model(*kb_ref.get_init_inputs())
            torch.manual_seed(seed)
            n = kb.ModelNew(*kb_ref.get_init_inputs())
            a, b = m.state_dict(), n.state_dict()
            seeds_ok &= list(a) == list(b) and all(torch.equal(a[k], b[k]) for k in a)
        check("KernelBench's seed protocol: ModelNew(*get_init_inputs()) has Model's state (%s)"
              % (", ".join(b[4] for b in kx.INPUTS if b[4]) or "none"), seeds_ok)
        # ModelNew on the module's own inputs (float32 from get_inputs(),
        # whatever the run's dtype): Model's output shapes and dtypes
        try:
            with torch.device("meta"):
                want = [(tuple(t.shape), t.dtype) for t in as_tuple(
                    kb_ref.Model(*kb_ref.get_init_inputs())(*kb_ref.get_inputs()))]
            with mode, torch.device("cuda"):
                ys = model_new()(*kb_ref.get_inputs())
            check("ModelNew on get_inputs() (%s) gives Model's outputs %s; the op runs in %s"
                  % (", ".join(str(t.dtype) for t in kb_ref.get_inputs()), want, kx.DTYPE),
                  got(ys) == want, "got %s" % got(ys))
        except Exception as e:
            check("ModelNew on get_inputs()", False, "%s at %s" % (first_line(e), where(e)))
    for what, model, dshapes, args in (("torch.export.export", Wrap(), None, xs),
                                       ("torch.export.export of ModelNew", model_new(), None, xs[:nf]),
                                       ("torch.export.export with a Dim per size", Wrap(), dyn, xs)):
        try:
            with mode:
                ep = torch.export.export(model, tuple(args), dynamic_shapes=dshapes)
            ok = has_op(ep.graph_module)
            detail = ""
            if dshapes is not None:
                xo = fake_inputs(odd)
                with mode:
                    ys = ep.module()(*xo)
                ok &= got(ys) == [(s, d) for s, d in expected(xo, odd)]
                detail = "ranges %s; the program runs at %s" % (
                    sorted(str(v) for v in ep.range_constraints.values()), odd)
            check("%s holds the op" % what, ok, detail)
        except Exception as e:
            check(what, False, "%s at %s" % (first_line(e), where(e)))

    graphs = []

    def record(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    compiles = (("torch.compile(fullgraph=True) graph", Wrap(), dict(backend=record)),
                ("torch.compile(fullgraph=True, backend='aot_eager')", Wrap(), dict(backend="aot_eager")),
                ("torch.compile(fullgraph=True, dynamic=True, backend='aot_eager')", Wrap(),
                 dict(backend="aot_eager", dynamic=True)),
                ("torch.compile of ModelNew (aot_eager)", model_new(), dict(backend="aot_eager")))
    for what, model, kw in compiles:
        torch._dynamo.reset()
        try:
            c = torch.compile(model, fullgraph=True, **kw)
            ok, seen = True, []
            mn = isinstance(model, kb.ModelNew) and kb_ref is not None  # state at the run's sizes
            for sizes in (kx.SHAPE,) if mn else (kx.SHAPE, odd):
                xi = fake_inputs(sizes)
                with mode:
                    ys = c(*(xi[:nf] if mn else xi))
                ok &= got(ys) == expected(xi, sizes)  # (t * 2 keeps the dtype)
                seen.append(sizes)
            if kw["backend"] is record:
                ok &= bool(graphs) and all(has_op(g) for g in graphs)
            check("%s holds the op at both shapes" % what if kw["backend"] is record
                  else "%s runs on fake tensors at %s" % (what, seen), ok)
        except Exception as e:
            check(what, False, "%s at %s" % (first_line(e), where(e)))

    if torch.cuda.is_available():
        device_checks(torch, kx, kb, ref, Wrap, odd)
    else:
        torch._dynamo.reset()
        import torch._inductor.config as icfg
        post = []  # the post-grad graphs inductor lowers (after AOT autograd)
        old_pass = icfg.post_grad_custom_post_pass
        icfg.post_grad_custom_post_pass = lambda g: post.append(
            any(str(n.target).startswith(opdot) for n in g.nodes))
        try:
            with mode:
                torch.compile(Wrap(), fullgraph=True, backend="inductor")(*xs)
            check("torch.compile(backend='inductor') without a device", True, "it compiled")
        except Exception as e:
            check("inductor's post-grad graph holds the op", post and all(post))
            say("STOP", "torch.compile(backend='inductor') without a device stops after that",
                "%s at %s" % (first_line(e), where(e)))
        finally:
            icfg.post_grad_custom_post_pass = old_pass
        try:
            import ctypes
            ctypes.CDLL(os.path.join(os.path.dirname(py), kx.LIB))
            say("NOTE", "%s loads here" % kx.LIB)
        except OSError as e:
            say("NOTE", "%s cannot load here (%s): it links libcuda.so.1, and the op "
                "loads it at its first CUDA call, after torch has loaded the driver" % (kx.LIB, e))

    ours = [w for w in caught if os.path.dirname(os.path.abspath(w[2])) ==
            os.path.dirname(os.path.abspath(py))
            or "custom_op" in w[1] or "register_fake" in w[1]]
    for c, m, f, l in ours:
        say("FAIL", "warning from the export", "%s:%d: %s: %s" % (f, l, c.__name__, m.splitlines()[0]))
    others = sorted({"%s: %s" % (c.__name__, m.splitlines()[0][:160]) for c, m, f, l in caught if
                     (c, m, f, l) not in ours})
    for o in others:
        say("NOTE", "torch warned (not the export's code)", o)
    if not ours:
        check("no warning from the export's code (%d from torch itself)" % len(others), True)
    print("%s: %d PASS, %d FAIL, %d STOP" % (os.path.basename(py), RESULTS["PASS"],
                                             RESULTS["FAIL"], RESULTS["STOP"]), flush=True)
    return 1 if RESULTS["FAIL"] else 0


def device_checks(torch, kx, kb, ref, Wrap, odd, dev="cuda"):
    """The op on a real device: values against torch, opcheck, inductor;
    for a PyTorch problem also ModelNew against Model under KernelBench's
    seed protocol."""
    tol = {"fp32": 1e-4, "fp16": 1e-2, "bf16": 4e-2}[kx.DTYPE]
    torch.backends.cuda.matmul.allow_tf32 = False  # the reference in true fp32
    torch.backends.cudnn.allow_tf32 = False
    say("NOTE", "device %s" % (torch.cuda.get_device_name(0) if dev == "cuda" else dev))
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    kb_ref = getattr(kb, "_ref", None)

    def inputs(sizes, seed):
        if kb_ref is not None:  # the module's own inputs and state
            saved = {k: kb_ref.__dict__[k] for k in sizes}
            kb_ref.__dict__.update(sizes)
            try:
                torch.manual_seed(seed)
                m = kb_ref.Model(*kb_ref.get_init_inputs())
                xs = list(kb_ref.get_inputs())
            finally:
                kb_ref.__dict__.update(saved)
            for name in (b[4] for b in kx.INPUTS if b[4]):
                t = m
                for part in name.split("."):
                    t = getattr(t, part)
                xs.append(t.detach())
            return [(x.to(kx.RUN_DTYPE) if x.is_floating_point() else x).to(dev).contiguous() for x in xs]
        g = torch.Generator(device=dev).manual_seed(seed)
        return [(torch.rand(*shape_of(kx, dims, sizes), device=dev, generator=g) * 2 - 1).to(dt)
                for (_, _, dt, dims, _) in kx.INPUTS]

    def compare(what, ys, xs, sizes, post=lambda t: t):
        if ref is None:
            return check(what, all(torch.isfinite(t.float()).all().item() for t in as_tuple(ys)),
                         "finite (no torch reference for %s)" % kx.PROBLEM)
        ok, errs = True, []
        up = [x.float() if x.is_floating_point() else x for x in xs]
        for y, r in zip(as_tuple(ys), ref(up, sizes)):
            r = post(r)
            if not r.is_floating_point():
                ok &= y.shape == r.shape and y.dtype == r.dtype and torch.equal(y, r)
                errs.append("%s of %d %s elements differ" % (int((y != r).sum()) if y.shape == r.shape else "all",
                                                            r.numel(), r.dtype))
                continue
            scale = r.abs().max().item() or 1.0
            err = (y.float() - r).abs().max().item() / scale
            ok &= y.shape == r.shape and err <= tol
            errs.append("%.2e" % err)
        return check(what, ok, "max error %s of max |ref| (tolerance %g)" % (", ".join(errs), tol))

    for label, sizes, seed in (("run shape", kx.SHAPE, 1), ("awkward shape", odd, 2)):
        xs = inputs(sizes, seed)
        try:
            ys = kx.op(*xs)
            sync()
            compare("the op at the %s %s against torch" % (label, sizes), ys, xs, sizes)
        except RuntimeError as e:
            if "(CUresult 1)" in str(e):  # the template's plan refuses these sizes
                say("NOTE", "the kernel refuses the %s %s" % (label, sizes), first_line(e))
            else:
                check("the op at the %s" % label, False, first_line(e))
    xs = inputs(kx.SHAPE, 3)
    try:
        torch.library.opcheck(kx.op.default, tuple(xs))
        check("torch.library.opcheck", True)
    except Exception as e:
        check("torch.library.opcheck", False, first_line(e))
    torch._dynamo.reset()
    try:
        ys = torch.compile(Wrap(), fullgraph=True, mode="max-autotune-no-cudagraphs")(*xs)
        sync()
        compare("the op inside an inductor-compiled model (fullgraph)", ys, xs, kx.SHAPE,
                lambda t: t * 2 if t.is_floating_point() else t)
    except Exception as e:
        check("inductor compile of a model calling the op", False, "%s at %s" % (first_line(e), where(e)))
    if kb_ref is None:
        same = all(torch.equal(a, b) for a, b in zip(as_tuple(kx.op(*xs)), as_tuple(kb.ModelNew()(*xs))))
        check("ModelNew gives the op's result", same)
        return
    # KernelBench's protocol: Model and ModelNew built under one seed, the
    # same inputs; ModelNew must match Model (in the run's dtype)
    nf = sum(1 for b in kx.INPUTS if not b[4])
    for seed in (0, 42):
        torch.manual_seed(seed)
        m = kb_ref.Model(*kb_ref.get_init_inputs()).to(dev)
        torch.manual_seed(seed)
        n = kb.ModelNew(*kb_ref.get_init_inputs()).to(dev)
        torch.manual_seed(seed + 1)
        ins = [x.to(dev) for x in kb_ref.get_inputs()]
        with torch.no_grad():
            want = as_tuple(m(*ins))
            got_ = as_tuple(n(*ins))
        ok, errs = len(want) == len(got_), []
        for r, y in zip(want, got_):
            if not r.is_floating_point():
                same = y.dtype == r.dtype and y.shape == r.shape
                ok &= same and torch.equal(y, r)
                errs.append("%s of %d %s elements differ" % (int((y != r).sum()) if same else "all",
                                                            r.numel(), r.dtype))
                continue
            scale = r.abs().max().item() or 1.0
            err = (y.float() - r.float()).abs().max().item() / scale
            ok &= y.shape == r.shape and y.dtype == r.dtype and err <= tol
            errs.append("%.2e" % err)
        check("KernelBench seed %d: ModelNew(*get_init_inputs()) matches Model on get_inputs()" % seed,
              ok, "max error %s (of max |ref|, tolerance %g; integers exact)" % (", ".join(errs), tol))
    torch._dynamo.reset()
    try:
        ins = [x.to(dev) for x in kb_ref.get_inputs()]
        c = torch.compile(n, fullgraph=True)
        with torch.no_grad():
            ok = all(torch.equal(a, b) for a, b in zip(as_tuple(c(*ins)), as_tuple(n(*ins))))
        check("torch.compile(ModelNew, fullgraph=True) gives ModelNew's result", ok)
    except Exception as e:
        check("torch.compile(ModelNew, fullgraph=True)", False, "%s at %s" % (first_line(e), where(e)))


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write(__doc__.split("usage: ")[1])
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
