"""The workloads of docs/BENCHMARKS.md, one module each; every module has `ID` and
`run(ctx) -> list of _harness.Result`. ORDER is the order run.py runs them."""

ORDER = ("w1_quadratic", "w2_mlp", "w3_cnn", "w4_jacobian", "w5_startup", "w6_tape",
         "w7_accuracy", "w8_recurrent")
