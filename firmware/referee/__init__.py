# rhinoref firmware: the referee's modules. Pure logic (rules, detector, cues, protocol) never
# imports machine; drivers take Pin/I2C/StateMachine objects; board.py holds the wiring.
