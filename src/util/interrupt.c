/* interrupt.c - see interrupt.h */
#include "interrupt.h"

volatile sig_atomic_t interrupt_flag;
