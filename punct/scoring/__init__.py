"""How well marks were restored: per-class precision, recall, F1 and slot error rate
(``score``, its report in ``score_report``), bootstrap intervals and paired tests
(``significance``), word error rate (``wer``), and the HTML reports and figures of score,
compare and RESULTS.md (``report``, ``figures``). Each name is imported from the module it
lives in.
"""
