# A ppc32 CPU that can never retire anything, loaded raw at 0 with entry 0x700: the word at the
# program-check vector is illegal, so every program exception raises the next one until pmusim
# stops the CPU (exception-loop).
    .text
    .globl _start
    .org 0x700
_start:
    .long 0
