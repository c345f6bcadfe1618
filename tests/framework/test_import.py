"""`import tapeflow` stays light: no numba, no tqdm, well under half a second."""

import subprocess
import sys

_PROBE = ("import sys, time; t = time.perf_counter(); import tapeflow; "
          "print(time.perf_counter() - t, 'numba' in sys.modules, 'tqdm' in sys.modules)")


def test_import_is_light_and_numba_free():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         check=True).stdout.split()
    seconds, has_numba, has_tqdm = float(out[0]), out[1], out[2]
    assert has_numba == "False", "import tapeflow imported numba; import it on first kernel use"
    assert has_tqdm == "False", "import tapeflow imported tqdm; import it inside ProgressBar"
    assert seconds < 2.0  # generous for a loaded CI machine; W5 measures the real figure


def test_keras_alias_namespace():
    import tapeflow as tf
    assert "layers" in dir(tf.keras) and "optimizers" in dir(tf.keras)
    import tapeflow.layers
    assert tf.keras.layers is tapeflow.layers


def test_namespaces_few_programs_use_load_on_first_access():
    code = ("import sys, tapeflow as tf\n"
            "lazy = ['tapeflow.data', 'tapeflow.testing', 'tapeflow.config', 'tapeflow.nn']\n"
            "print([m for m in lazy if m in sys.modules])\n"
            "print(tf.data.Dataset.__name__, tf.test is tf.testing, "
            "tf.config.experimental.get_process_settings()[0].name.split('.')[0])\n"
            "from tapeflow.testing import gradcheck\n"
            "print(gradcheck is tf.testing.gradcheck, 'data' in dir(tf))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[]", "Dataset True malloc", "True True"]


def test_unknown_attribute_names_itself():
    import pytest
    import tapeflow as tf
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        tf.no_such_thing


def test_every_lazily_loaded_name_resolves():
    import tapeflow as tf
    missing = []
    for name in tf._LAZY:
        try:
            getattr(tf, name)
        except (AttributeError, ImportError) as error:
            missing.append(f"{name}: {error}")
    assert missing == []
