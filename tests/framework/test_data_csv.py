"""tf.data.experimental.CsvDataset and make_csv_dataset (tapeflow.data):
TF's docstring example, required and optional columns, type inference as TF's
_infer_type, the (features, label) batches of the "Load CSV data" tutorial."""

import collections

import numpy as np
import pytest
import tapeflow as tf

experimental = tf.data.experimental


def values(dataset):
    return list(dataset.as_numpy_iterator())


@pytest.fixture
def titanic(tmp_path):
    path = tmp_path / "titanic.csv"
    path.write_text("survived,sex,age,fare,class\n"
                    "0,male,22.0,7.25,Third\n"
                    "1,female,38.0,71.2833,First\n"
                    "1,female,26.0,7.925,Third\n"
                    "0,male,,8.05,\"Third, back\"\n")
    return str(path)


def test_csv_dataset_example_of_tf_docs(tmp_path):
    path = tmp_path / "my_file0.csv"
    path.write_text("abcdefg,4.28E10,5.55E6,12\nhijklmn,-5.3E14,,2\n")
    ds = experimental.CsvDataset(str(path), [tf.float32, tf.constant([0.0], dtype=tf.float32),
                                             tf.int32], select_cols=[1, 2, 3])
    got = values(ds)
    np.testing.assert_allclose([g[:2] for g in got], [(4.28e10, 5.55e6), (-5.3e14, 0.0)],
                               rtol=1e-6)
    assert [g[2] for g in got] == [12, 2]
    assert ds.element_spec == (tf.TensorSpec((), tf.float32), tf.TensorSpec((), tf.float32),
                               tf.TensorSpec((), tf.int32))
    assert got[0][2].dtype == np.int32


def test_csv_dataset_header_strings_quotes_and_errors(titanic):
    ds = experimental.CsvDataset(titanic, [tf.int32, tf.string, 0.0, tf.float64, tf.string],
                                 header=True)
    got = values(ds)
    assert got[0] == (0, b"male", 22.0, 7.25, b"Third")
    assert got[3][2] == 0.0 and got[3][4] == b"Third, back"     # default, quoted delimiter
    assert got[1][3].dtype == np.float64
    required = experimental.CsvDataset(titanic, [tf.int32, tf.string, tf.float32, tf.float32,
                                                 tf.string], header=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 2 is required but missing "
                                                             "in record 3"):
        values(required)
    bad = experimental.CsvDataset(titanic, [tf.int32, tf.int32, 0.0, 0.0, ""], header=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Field 1 in record 0 is not a "
                                                             "valid int32: male"):
        values(bad)
    short = experimental.CsvDataset(titanic, [tf.int32, tf.string], header=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 5"):
        values(short)
    dropped = experimental.CsvDataset(titanic, [tf.int32, tf.string], header=True,
                                      exclude_cols=[2, 3, 4])
    assert values(dropped)[1] == (1, b"female")


def test_make_csv_dataset_as_the_csv_tutorial(titanic):
    ds = experimental.make_csv_dataset(titanic, batch_size=2, label_name="survived",
                                       num_epochs=1, shuffle=False)
    (features, label), (features2, label2) = values(ds)
    assert label2.tolist() == [1, 0]
    assert isinstance(features, collections.OrderedDict)
    assert list(features) == ["sex", "age", "fare", "class"]
    assert label.tolist() == [0, 1] and label.dtype == np.int32     # inferred int32
    assert features["age"].dtype == np.float32 and features["sex"].tolist() == [b"male",
                                                                             b"female"]
    assert features2["age"].tolist() == [26.0, 0.0]                  # empty -> default 0
    assert features2["class"].tolist() == [b"Third", b"Third, back"]
    spec = ds.element_spec
    assert spec[1] == tf.TensorSpec((None,), tf.int32)


def test_make_csv_dataset_repeats_forever_by_default_with_full_batches(titanic):
    ds = experimental.make_csv_dataset(titanic, batch_size=3, shuffle_seed=1)
    assert ds.element_spec["age"] == tf.TensorSpec((3,), tf.float32)
    batches = values(ds.take(4))
    assert all(b["age"].shape == (3,) for b in batches)
    ages = sorted(np.concatenate([b["age"] for b in batches]).tolist())
    assert ages == sorted([22.0, 38.0, 26.0, 0.0] * 3)              # 3 passes, reshuffled


def test_make_csv_dataset_select_columns_defaults_and_errors(titanic, tmp_path):
    ds = experimental.make_csv_dataset(titanic, 4, select_columns=["fare", "survived"],
                                       column_defaults=[tf.int64, 0.0], label_name="fare",
                                       num_epochs=1, shuffle=False)
    (features, label), = values(ds)
    assert list(features) == ["survived"] and features["survived"].dtype == np.int64
    np.testing.assert_allclose(label, [7.25, 71.2833, 7.925, 8.05], rtol=1e-6)
    with pytest.raises(ValueError, match="must be one of the columns"):
        experimental.make_csv_dataset(titanic, 2, label_name="nope")
    with pytest.raises(ValueError, match="No files match"):
        experimental.make_csv_dataset(str(tmp_path / "*.none"), 2)
    with pytest.raises(ValueError, match="without a header"):
        experimental.make_csv_dataset(titanic, 2, header=False)
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n1,2\nx,3\n4,5\n")
    skipping = experimental.make_csv_dataset(str(bad), 5, column_defaults=[tf.int32, tf.int32],
                                             num_epochs=1, shuffle=False, ignore_errors=True)
    assert values(skipping)[0]["a"].tolist() == [1, 4]


def test_inferred_types_widen_as_tf(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("i,big,f,s\n1,1,1,1\n2,3000000000,2.5,x\n")
    (batch,) = values(experimental.make_csv_dataset(str(path), 2, num_epochs=1, shuffle=False))
    assert [batch[k].dtype for k in ["i", "big", "f"]] == [np.int32, np.int64, np.float32]
    assert batch["s"].tolist() == [b"1", b"x"]
