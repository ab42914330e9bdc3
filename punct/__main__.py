import sys

from punct.cli import main

sys.exit(main())
