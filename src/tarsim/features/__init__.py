"""Text into matrices: BMI tf-idf features of documents and sentences, tf-idf extractors, the feature cache.

May import: tarsim.text, tarsim.components, tarsim.data, tarsim.runtime, tarsim.errors."""
