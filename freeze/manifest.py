# Freeze the referee into a MicroPython firmware for the Pico: its bytecode then runs from
# flash and the heap holds only the firmware's objects, as with `rhinoref deploy --romfs`, the
# reference way (docs/heap.md: on a 32-bit build about 93 KB during a game from .mpy files,
# 47 KB with the code in place). From a MicroPython checkout:
#
#   make -C ports/rp2 BOARD=RPI_PICO FROZEN_MANIFEST=/path/to/rhinoref/freeze/manifest.py
#
# (or with the ROMFS board folder of docs/heap.md, BOARD_DIR=...; built there on 2026-11-29,
# not run on a Pico), then `rhinoref flash build-RPI_PICO/firmware.uf2`. Paths are relative to
# this file. A frozen package must be rebuilt into the firmware for every change. Keep
# main.py on the board's filesystem (`rhinoref deploy` puts it there) and remove the deployed
# /referee folder, which would otherwise shadow the frozen package ('' comes before .frozen on
# sys.path).
include("$(PORT_DIR)/boards/manifest.py")
package("referee", base_path="../firmware", opt=3)
