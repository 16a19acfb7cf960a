"""Other tools' formats: ASReview screening files and .asreview projects, order files, TREC SGML, Reuters, 20NG.

May import: tarsim.data, tarsim.text (segmentation for passages), tarsim.errors."""
