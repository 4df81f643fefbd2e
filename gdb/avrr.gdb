# avrr.gdb — avrr's monitor commands as plain gdb commands.
#
# `avrr gdb` loads this file by itself; from an IDE or a plain avr-gdb,
# `source` it (installed as PREFIX/share/avrr/avrr.gdb).  A monitor goto
# moves the replay behind gdb's back, so `goto` then flushes gdb's register
# and frame caches and shows the frame it landed in: registers, backtrace
# and the source view are those of the new position.

define goto
  if $argc == 1
    monitor goto $arg0
  else
    if $argc == 2
      monitor goto $arg0 $arg1
    else
      monitor goto
    end
  end
  maintenance flush register-cache
  frame
end
document goto
goto ICOUNT: travel to the position after ICOUNT instructions.
goto irq N: travel to the entry of the N-th recorded interrupt (from 1).
gdb's registers, frame and source view follow.
end

define when
  monitor when
end
document when
The position in the recording: icount, pc and symbol.
end

define irqs
  if $argc == 0
    monitor irqs
  else
    monitor irqs $arg0
  end
end
document irqs
The recorded interrupts near here, each correct, missed or pending.
irqs all: every one.
end

define errors
  monitor errors
end
document errors
The replay's counters up to here.
end

define fingerprint
  monitor fingerprint
end
document fingerprint
The fingerprint here under each stored configuration, and whether it is in D.
end

define divergence
  monitor divergence
end
document divergence
Where and how the replay diverged, if it did.
end

define uart
  if $argc == 0
    monitor uart
  else
    monitor uart $arg0
  end
end
document uart
uart [N]: the text the firmware sent on its UARTs (on UART N) before here.
end
