"""api/: the checked public wrappers TF puts in its root namespace (`tf.reshape`,
`tf.gather`, `tf.print`) and the Python operators of Tensor."""
