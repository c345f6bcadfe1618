"""core/: values and recording -- dtypes, errors, nest, Tensor and Variable, the
recording stack ops report to, and argument helpers. Imports nothing above runtime/."""
