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
  python avrr_unwinder.forget()
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

# Frames through interrupt handlers.  avr-gdb unwinds by scanning each
# function's prologue, which loses its way in an interrupt handler (it
# counts the SREG push wrong, takes Y for the frame base whether the
# handler set it up or not, and knows no epilogue), and it reads no
# .debug_frame.  This unwinder takes avrr's frame rows instead — each
# function's frame at each instruction, read from its code (`monitor
# frame-rows`) — so `bt`, `up` and `finish` are right at every
# instruction: a handler's caller is the code it interrupted, at the
# interrupted pc.  Where avrr has no row, avr-gdb's own unwinder goes on.
# The vector table is the ELF's entry function, past which gdb does not
# unwind by default: stopped at a vector, the interrupted code is past it.
set backtrace past-entry on
python
import bisect
import struct

import gdb
from gdb.FrameDecorator import FrameDecorator
from gdb.unwinder import Unwinder, register_unwinder


class AvrrFrameId:
    def __init__(self, sp, pc):
        self.sp = sp
        self.pc = pc


class AvrrUnwinder(Unwinder):
    def __init__(self):
        super().__init__("avrr frame rows")
        self.rows = None
        # (pc, cfa) of frames an interrupt stopped: their pc is the
        # interrupted instruction's, not a return address after a call.
        self.interrupted = set()

    def forget(self, *args):
        self.interrupted = set()

    def load(self):
        self.rows, self.pcs, self.pc_bytes, self.vectors = [], [], 2, {}
        try:
            text = gdb.execute("monitor frame-rows", to_string=True)
        except gdb.error:
            return
        lines = text.splitlines()
        if not lines or not lines[0].startswith("avrr-frame-rows 1 "):
            return
        self.pc_bytes = int(lines[0].split()[2])
        self.vectors = {}
        for line in lines[1:]:
            f = line.split()
            if len(f) == 3 and f[0] == "vector":
                self.vectors[int(f[1])] = f[2]
            elif len(f) == 2:
                self.rows.append((int(f[0], 16), None))
            elif len(f) >= 6:
                saved = {}
                for s in f[6:]:
                    r, d = s.split(":")
                    saved[int(r)] = int(d)
                self.rows.append((int(f[0], 16), (int(f[1], 16), f[2] == "y", int(f[3]),
                                                  f[4] == "irq", int(f[5]), saved)))
        self.pcs = [r[0] for r in self.rows]

    def row(self, pc):
        i = bisect.bisect_right(self.pcs, pc)
        return self.rows[i - 1][1] if i else None

    def __call__(self, pending):
        if self.rows is None:
            self.load()
        if not self.rows:
            return None
        pc = int(pending.read_register("PC2")) & 0x3fffff
        sp = int(pending.read_register("SP")) & 0xffff
        exact = pending.level() == 0 or (pc, sp) in self.interrupted
        row = self.row(pc if exact else pc - 1)
        if row is None:
            return None
        func, on_y, off, irq, sreg_in, saved = row
        if on_y:
            base = (int(pending.read_register("r28")) & 0xff) | \
                   (int(pending.read_register("r29")) & 0xff) << 8
        else:
            base = sp
        cfa = (base + off) & 0xffff
        mem = gdb.selected_inferior().read_memory
        ra = bytes(mem(0x800000 + cfa - (self.pc_bytes - 1), self.pc_bytes))
        word = 0
        for b in ra:
            word = word << 8 | b
        caller_pc = word * 2
        info = pending.create_unwind_info(AvrrFrameId(gdb.Value(0x800000 + cfa),
                                                      gdb.Value(func)))
        u8 = gdb.lookup_type("unsigned char")
        for r in range(32):
            if r in saved:
                v = bytes(mem(0x800000 + cfa - saved[r], 1))[0]
            else:
                v = int(pending.read_register("r%d" % r)) & 0xff
            info.add_saved_register("r%d" % r, gdb.Value(v).cast(u8))
        sreg = int(pending.read_register("SREG")) & 0xff
        if 32 in saved:
            sreg = bytes(mem(0x800000 + cfa - saved[32], 1))[0]
        elif sreg_in:
            sreg = int(pending.read_register("r%d" % (sreg_in - 1))) & 0xff
        if irq:
            sreg |= 0x80   # the interrupt was taken with I set
            self.interrupted.add((caller_pc, cfa))
        info.add_saved_register("SREG", gdb.Value(sreg).cast(u8))
        sp_type = pending.read_register("SP").type
        pc_type = pending.read_register("PC2").type
        info.add_saved_register("SP", gdb.Value(struct.pack("<H", cfa), sp_type))
        info.add_saved_register("PC2", gdb.Value(struct.pack("<I", caller_pc), pc_type))
        return info


class AvrrInterruptFrame(FrameDecorator):
    """The interrupt between a handler and the code it stopped, as gdb
    shows a signal handler: a line of its own, with no level."""

    def __init__(self, handler, name):
        super().__init__(handler)
        self.name = name

    def function(self):
        return "<interrupt %s>" % self.name

    def address(self):
        return None

    def filename(self):
        return None

    def line(self):
        return None

    def frame_args(self):
        return None

    def frame_locals(self):
        return None


def avrr_without_params(name):
    """A C++ function's print name without its parameter list, as gdb
    names a frame ("loop", not "loop()")."""
    if not name.endswith(")"):
        return name
    depth = 0
    for i in range(len(name) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(name[i], 0)
        if depth == 0:
            return name[:i]
    return name


class AvrrNamedFrame(FrameDecorator):
    """Any frame, named as gdb names it without a frame filter: a filter's
    frames are printed by the function name, which for C++ carries its
    parameters ("loop()"), where gdb's own printing drops them."""

    def function(self):
        name = super().function()
        return avrr_without_params(name) if isinstance(name, str) else name


class AvrrInterruptedFrame(FrameDecorator):
    """The code an interrupt stopped: named by its own pc, not pc - 1 as
    gdb names a caller (whose pc is a return address)."""

    def function(self):
        pc = self.inferior_frame().pc()
        block = gdb.block_for_pc(pc)
        while block is not None and block.function is None:
            block = block.superblock
        return avrr_without_params(block.function.print_name) if block is not None else pc

    def filename(self):
        sal = gdb.find_pc_line(self.inferior_frame().pc())
        return sal.symtab.filename if sal.symtab else None

    def line(self):
        sal = gdb.find_pc_line(self.inferior_frame().pc())
        return sal.line if sal.symtab else None


class AvrrInterruptFilter:
    def __init__(self, unwinder):
        self.name = "avrr interrupts"
        self.priority = 100
        self.enabled = True
        self.unwinder = unwinder
        gdb.frame_filters[self.name] = self

    def vector_of(self, frame):
        fn = frame.name() or ""
        if fn.startswith("__vector_"):
            try:
                return int(fn[9:])
            except ValueError:
                return None
        row = self.unwinder.row(frame.pc())
        if row is not None and row[3] and row[0] == 0:
            # a vector slot: a jmp (4 bytes) on parts over 8 KiB, else an rjmp
            w = bytes(gdb.selected_inferior().read_memory(frame.pc(), 2))
            jmp = (w[0] | w[1] << 8) & 0xfe0e == 0x940c
            return frame.pc() // (4 if jmp else 2)
        return None

    def filter(self, frames):
        interrupted = False
        for d in frames:
            yield AvrrInterruptedFrame(d) if interrupted else AvrrNamedFrame(d)
            f = d.inferior_frame()
            try:
                up = f.older()
                sp = int(up.read_register("SP")) & 0xffff if up is not None else 0
            except gdb.error:
                up = None
            interrupted = up is not None and (up.pc(), sp) in self.unwinder.interrupted
            if interrupted:
                v = self.vector_of(f)
                name = self.unwinder.vectors.get(v, "vector %s" % v) if v else "interrupt"
                yield AvrrInterruptFrame(f, name)


avrr_unwinder = AvrrUnwinder()
AvrrInterruptFilter(avrr_unwinder)
register_unwinder(None, avrr_unwinder, replace=True)
# The frames of one stop are unwound partly before its stop event (stepping
# looks at the caller): what they learnt lasts until the target resumes.
gdb.events.cont.connect(avrr_unwinder.forget)
end
