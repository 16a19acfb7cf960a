"""Where collections come from: the dataset catalogue (fetch), the synthetic demo, `tarsim data convert`, loading.

May import: tarsim.interop, tarsim.data, tarsim.errors."""

from tarsim.datasets.load import load_dataset

__all__ = ["load_dataset"]
