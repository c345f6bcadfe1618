"""compiler/: `tapeflow.function`."""
