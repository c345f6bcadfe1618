"""inventory.py's extraction and checks, on a small notebook, a .md page and a git source."""

import json
import subprocess

import inventory


def _notebook(*cells):
    return json.dumps({"cells": [{"cell_type": kind, "source": source} for kind, source in cells]})


def test_names_from_notebook_cells_with_aliases_and_magics():
    text = _notebook(
        ("code", "!pip install tensorflow\nimport tensorflow as tf\nfrom tensorflow import keras\n"),
        ("markdown", "tf.not_code.Here"),
        ("code", ["from tensorflow.keras import layers\n",
                  "from tensorflow.keras.layers import Dense\n",
                  "%matplotlib inline\n",
                  "m = keras.Sequential([layers.Dense(2), Dense(1)])\n",
                  "x = tf.constant(1.0).numpy()\n",
                  "y = tf.data.Dataset.from_tensor_slices([1]).batch(2)\n"]),
        ("code", "this is not python ( tf.math.broken_cell(\n"),
    )
    modules = set()
    names, used_regex = inventory.page_names("page.ipynb", text, modules)
    # `from tensorflow.keras import layers` counts the namespace itself too
    assert names == {"tf.keras.Sequential", "tf.keras.layers.Dense", "tf.keras.layers", "tf.constant",
                     "tf.data.Dataset.from_tensor_slices", "tf.math.broken_cell"}
    assert used_regex
    assert modules == {"tf.keras", "tf.keras.layers"}  # the paths `from X import` needs


def test_names_from_markdown_fences_and_keras3_imports():
    text = "Text tf.ignored.\n```python\nimport keras\nkeras.layers.Dense(3)\n```\n"
    names, used_regex = inventory.page_names("page.md", text)
    assert names == {"tf.keras.layers.Dense"} and not used_regex


def test_status_resolves_excludes_and_reports_missing():
    assert inventory.status("tf.keras.layers.Dense") == "implemented"
    assert inventory.status("tf.compat.v1.Session").startswith("excluded: TF 1 graph mode")
    assert inventory.status("tf.tpu.experimental.initialize_tpu_system").startswith("excluded: TPU")
    assert inventory.status("tf.surely_not_an_api_name") == "missing"
    assert inventory.importable("tf.keras") and not inventory.importable("tf.surely_not_a_module")


def test_build_and_render_over_a_git_source(tmp_path):
    repo = tmp_path / "docs"
    (repo / "site").mkdir(parents=True)
    (repo / "site" / "a.py").write_text("import tensorflow as tf\ntf.constant(1)\ntf.Session()\n")
    (repo / "site" / "b.ipynb").write_text(_notebook(("code", "import tensorflow as tf\ntf.constant(2)")))
    (repo / "other.py").write_text("import tensorflow as tf\ntf.not_read()\n")
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(git[:3] + ["init", "-q"], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "pages"], check=True)
    described, rows, total_pages, regex_pages, module_rows = inventory.build([f"{repo}:site"])
    assert total_pages == 2 and regex_pages == 0 and module_rows == []
    assert described[0]["dirs"] == ["site"] and len(described[0]["commit"]) == 40
    assert rows[0] == ("tf.constant", 2, "implemented")
    assert rows[1][:2] == ("tf.Session", 1) and rows[1][2].startswith("excluded")
    text = inventory.render(described, rows, total_pages, regex_pages, module_rows, ["x"])
    assert "| `tf.constant` | 2 | implemented |" in text
    assert "| >= 2 pages | 1 | 1 (100%) | 0 | 0 |" in text
