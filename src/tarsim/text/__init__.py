"""Text into tokens: sentence segmentation, lazily segmented sentences, the BMI/HiCAL analysers, term counts.

May import: tarsim.data, tarsim.runtime, tarsim.errors."""
