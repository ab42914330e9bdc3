"""Words and their spelling: the label set and mark map (``labels``), the Word and Utterance
records every reader gives (``words``), the tokenizer of written text (``textnorm``) and the
sentence case and true case of restored words (``casing``). Nothing here reads a file or
imports torch; each name is imported from the module it lives in.
"""
