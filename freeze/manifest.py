# Freeze the referee into a MicroPython firmware for the Pico: its bytecode then runs from
# flash and the heap holds only the firmware's objects (docs/heap.md: ~118 KB of heap from .mpy
# files on the 64-bit unix port, ~60 KB with the code in place). From a MicroPython checkout:
#
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/rhinoref/freeze/manifest.py
#
# then `rhinoref flash build-RPI_PICO/firmware.uf2`. Paths are relative to this file. Keep
# main.py on the board's filesystem (`rhinoref deploy` puts it there) and remove the deployed
# /referee folder, which would otherwise shadow the frozen package ('' comes before .frozen on
# sys.path).
include("$(PORT_DIR)/boards/manifest.py")
package("referee", base_path="../firmware", opt=3)
