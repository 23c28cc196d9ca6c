"""Everything a student file can reach in `minitorch` is the course's: its names, signatures and dunders,
including what the course's framework does *not* have (a `1 - tensor` that crashes there crashes here).

The course's side is a snapshot per offering, problems/surfaces/OFFERING.json: names and signatures only,
made by scripts/starter_surface.py from the offering's starter (see its docstring to regenerate):

    s26  000FLMS/llmsys_hw2 @b9716f3         f25  kortemaki/llmsys_f25_hw2 @958d3e1
    s25  kortemaki/llmsys_f25_hw2 @679be2a   s24  llmsystem/llmsys_s24_hw1 @ef990e9 (its last staff commit)

One framework serves every offering (the sandboxed child does not know which it grades), so its surface is
what the offerings share, except for a name one of them needs (EXPLAINED says which and why). Every other
difference fails this test; tests/course_surface.py prints them all.
"""

from __future__ import annotations

import pytest

import minitorch
from course_surface import differences, load, offerings

ALL = ("s26", "f25", "s25", "s24")

_SCALAR_FAMILY = ("the lecture's Scalar autodiff: the autodiff probes' Scalar programs are built from it, in every "
                  "offering; a student file meets Scalars only as the Variables handed to topological_sort and "
                  "backpropagate, through the course's Variable protocol (checked below)")
_OTHER_PROBLEMS = ("a module of this repository's other problems (the `minitorch` and `all` offerings grade them); "
                   "the course's handout never names it")
_BACKENDS = ("our NumPy default backend and the SIMT simulator: `tensor(...)` and the factories default to the NumPy "
             "backend (README: kept different where no student file can tell; float64 values, same results)")
_NN_EXTRAS = "our nn extras, used by the reference's own code and other problems' probes; not in the course's handout"
_DEFAULT_BACKEND = ("the factories default to our NumPy backend, not SimpleBackend: same values and gradients "
                    "(README, the reference framework); a student passing backend=... gets the one asked for")

#: (kind, where) -> (the offerings it applies to, why the difference stays)
EXPLAINED = {
    **{("extra", f"minitorch.{n}"): (ALL, _SCALAR_FAMILY)
       for n in ("Scalar", "ScalarHistory", "ScalarFunction", "derivative_check", "scalar", "scalar_functions")},
    **{("extra", f"minitorch.{n}"): (ALL, _OTHER_PROBLEMS) for n in ("forward", "mini_tf")},
    **{("extra", f"minitorch.{n}"): (ALL, _BACKENDS)
       for n in ("FastBackend", "FastOps", "NumpyOps", "SimtBackend", "SimtOps", "Dim3", "ThreadContext", "launch",
                 "tensor_matrix_multiply")},
    **{("extra", f"minitorch.{n}"): (ALL, _NN_EXTRAS)
       for n in ("Dropout", "Embedding", "Mean", "embedding", "binary_cross_entropy", "cross_entropy")},
    ("extra", "minitorch.CudaKernelOps"): (("s26", "f25"), "spring 2024 and 2025's `minitorch` has it (nn imports "
                                           "it) and their tests import it from there: needed by s24 and s25"),
    ("extra", "minitorch.cuda_kernel_ops"): (("s26", "f25"), "the module of CudaKernelOps (above)"),
    ("extra", "minitorch.warnings"): (("f25", "s25", "s24"), "spring 2026's star imports leak it: needed by s26"),
    **{("missing", f"minitorch.{n}"): (ALL, "numba (and its `cuda`) is not installed where grading runs, and "
                                             "torch is the sandbox's stand-in (README, Sandbox): reaching them "
                                             "fails while grading whatever the framework")
       for n in ("numba", "cuda", "torch")},
    **{("missing", f"minitorch.{m}.{n}"): (ALL, "numba / torch (above), which the course's module imports")
       for m, n in (("tensor_data", "numba"), ("tensor_data", "cuda"), ("tensor_functions", "torch"))},
    ("missing", "minitorch.tensor._tensor_count"): (ALL, "the course's id counter; ours counts with `_ids` (the "
                                                         "ids themselves, `unique_id`, are there)"),
    ("missing", "minitorch.optim.SGD._print"): (ALL, "a private debugging helper of the course's SGD"),
    ("extra", "minitorch.tensor.Tensor.__array__"): (ALL, "np.asarray(tensor) gives the values (the course's gives "
                                                          "a 0-d object array): the grader's own probes and judges "
                                                          "read tensors this way; not yet removed"),
    ("extra", "minitorch.tensor.Tensor.__array_ufunc__"): (ALL, "NumPy scalars defer to the Tensor's operators "
                                                                "(`np.float64(2) * t` is a Tensor, as a float's "
                                                                "would be); the course's makes an object array"),
    ("extra", "minitorch.tensor_data.TensorData.__repr__"): (ALL, "printing only"),
    ("extra", "minitorch.tensor_ops.TensorBackend.__repr__"): (ALL, "printing only"),
    ("extra", "minitorch.tensor_data.TensorData.array"): (ALL, "our storage as a shaped float64 array (the NumPy "
                                                              "backend); the course's `_storage`, `_shape`, "
                                                              "`_strides` are there too"),
    ("extra", "minitorch.tensor_data.TensorData.__slots__"): (ALL, "TensorData takes no new attributes here"),
    ("extra", "minitorch.tensor_ops.TensorBackend.ops"): (ALL, "the ops class the backend was made from"),
    ("extra", "minitorch.tensor_functions.All.backward"): (ALL, "zeros: the course's All and IsClose have no "
                                                                "backward (a backward through a comparison)"),
    ("extra", "minitorch.tensor_functions.IsClose.backward"): (ALL, "as All.backward"),
    **{("signature", f"minitorch.tensor_ops.{c}.cmap"): (ALL, "a classmethod here, a staticmethod there: called "
                                                              "the same way, `Ops.cmap(fn)`")
       for c in ("TensorOps", "SimpleOps")},
    **{("signature", f"minitorch.tensor_functions.{n}"): (ALL, _DEFAULT_BACKEND)
       for n in ("_tensor", "ones", "zeros", "rand", "tensor", "tensor_from_numpy", "zeros_tensor_from_numpy",
                 "ones_tensor_from_numpy")},
    # what spring 2024 lacks and the later offerings have: a valid spring 2025/2026 solution uses them
    ("extra", "minitorch.tensor.Tensor.__pow__"): (("s24",), "spring 2025 on (`x ** 2`); needed by s25, f25, s26"),
    ("extra", "minitorch.tensor.Tensor.tanh"): (("s24",), "spring 2025 on; needed by s25, f25, s26"),
    ("extra", "minitorch.optim.Adam.zero_grad"): (("s24",), "spring 2025 on (the course's loops call it); needed "
                                                            "by s25, f25, s26"),
}

#: whole modules of the course's package whose contents are not a student file's surface
EXPLAINED_MODULES = {
    "minitorch.cuda_kernel_ops.": "the CUDA backend: no GPU where grading runs (ours is a stand-in of its name)",
    "minitorch.datasets.": ("the course's toy 2-D datasets of miniTorch module 0 (`minitorch.datasets` is their "
                            "dict there); ours is the sentiment corpus's module, which no student file imports"),
}


def _unexplained(offering):
    out = []
    for kind, where, detail in differences(load(offering)):
        reason = EXPLAINED.get((kind, where))
        if reason is not None and offering in reason[0]:
            continue
        if any(where.startswith(prefix) for prefix in EXPLAINED_MODULES):
            continue
        out.append(f"{kind} {where}: {detail}")
    return out


def test_every_offering_with_a_course_starter_has_a_snapshot():
    assert offerings() == sorted(ALL)
    for offering in ALL:
        snap = load(offering)
        assert snap["offering"] == offering and len(snap["commit"]) == 40
        assert "Tensor" in snap["modules"]["tensor"]["classes"]


@pytest.mark.parametrize("offering", ALL)
def test_the_surface_a_student_file_reaches_is_the_courses(offering):
    assert _unexplained(offering) == []


@pytest.mark.parametrize("offering", ALL)
def test_every_explanation_is_still_needed(offering):
    """An exception that no longer matches a difference is dropped (a stale list hides the next change)."""
    found = {(kind, where) for kind, where, _ in differences(load(offering))}
    stale = [key for key, (which, _) in EXPLAINED.items() if offering in which and key not in found]
    assert stale == []


def test_an_extra_dunder_fails_the_comparison(monkeypatch):
    """The comparison sees a name added to a class after its definition, as a student file would."""
    monkeypatch.setattr(minitorch.Tensor, "__rsub__", lambda self, b: -(self - b), raising=False)
    monkeypatch.setattr(minitorch.Module, "__len__", lambda self: 0, raising=False)
    found = _unexplained("s26")
    assert "extra minitorch.tensor.Tensor.__rsub__: method" in found
    assert "extra minitorch.module.Module.__len__: method" in found


def test_a_changed_signature_fails_the_comparison(monkeypatch):
    def requires_grad_(self, x=True):
        pass

    monkeypatch.setattr(minitorch.Tensor, "requires_grad_", requires_grad_)
    assert any(line.startswith("signature minitorch.tensor.Tensor.requires_grad_")
               for line in _unexplained("f25"))


def test_a_number_on_the_left_of_a_tensor_fails_as_on_the_courses():
    """No `__rsub__`, `__rmatmul__` or `__float__` in any course Tensor: TypeError, as there. The ones it has stay."""
    t = minitorch.tensor([0.25, 0.5])
    with pytest.raises(TypeError):
        _ = 1 - t
    with pytest.raises(TypeError):
        _ = [[1.0], [2.0]] @ minitorch.tensor([[1.0, 2.0]])
    with pytest.raises(TypeError):
        float(minitorch.tensor([0.5]))
    assert (2 + t).to_numpy().tolist() == [2.25, 2.5]
    assert (2 * t).to_numpy().tolist() == [0.5, 1.0]
    assert (1 / t).to_numpy().tolist() == [4.0, 2.0]
    assert (-t + 1).to_numpy().tolist() == [0.75, 0.5]
    with pytest.raises(TypeError):
        t.requires_grad_()  # the course's takes x


def test_scalars_offer_the_courses_variable_protocol():
    """A student file meets a Scalar only as a Variable: it has every member of the course's Variable protocol."""
    for offering in ALL:
        protocol = load(offering)["modules"]["autodiff"]["classes"]["Variable"]["members"]
        x = minitorch.Scalar(2.0)
        missing = [name for name in protocol if not name.startswith("__") and not hasattr(x, name)]
        assert missing == [], offering
