"""`tf.keras.losses.Reduction`: Keras 2's enum of loss reductions.

Keras 3 dropped the class for plain strings; TF 2 programs still write
`reduction=tf.keras.losses.Reduction.NONE`. Its members are those strings,
so every Loss accepts them as it accepts the strings.
"""

__all__ = ["Reduction"]


class Reduction:
    """The types of loss reduction (Keras 2's `ReductionV2`).

    `AUTO` means `SUM_OVER_BATCH_SIZE` (Keras 2 chose it by distribution
    strategy; tapeflow has no distribution scope that needs otherwise).
    """

    AUTO = "auto"
    NONE = "none"
    SUM = "sum"
    SUM_OVER_BATCH_SIZE = "sum_over_batch_size"

    @classmethod
    def all(cls):
        return (cls.AUTO, cls.NONE, cls.SUM, cls.SUM_OVER_BATCH_SIZE)

    @classmethod
    def validate(cls, key):
        """Raises ValueError (Keras 2's message) if `key` is not a reduction."""
        if key not in cls.all():
            raise ValueError(f'Invalid Reduction Key: {key}. Expected keys are "{cls.all()}"')
