import os
import sys

# let tests import the small oracle modules beside them
sys.path.insert(0, os.path.dirname(__file__))
