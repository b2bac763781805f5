import sys

from arena._cli import main

sys.exit(main())
