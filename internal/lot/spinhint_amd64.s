#include "textflag.h"

// func cpuRelax(n int)
TEXT ·cpuRelax(SB), NOSPLIT, $0-8
	MOVQ n+0(FP), CX
	TESTQ CX, CX
	JLE done
loop:
	PAUSE
	DECQ CX
	JNZ loop
done:
	RET
