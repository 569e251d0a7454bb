# RUN: %dlmc --emit=ast %s | FileCheck %s
# A stdlib import binds a module name; a relative path import (with '/' or '..') is marked
# `path`; a quoted path is accepted too.
import nn
import models/mlp
import ../shared/util
import "data/loader"

# CHECK:   Import 'nn' <4:1-4:10>
# CHECK-NEXT:   Import 'models/mlp' path <5:1-5:18>
# CHECK-NEXT:   Import '../shared/util' path <6:1-6:22>
# CHECK-NEXT:   Import 'data/loader' path <7:1-7:21>
