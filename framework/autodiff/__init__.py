"""autodiff/: GradientTape and the backward walk over the recorded ops."""
