"""The controller: one untrusted module instance playing one match (rules §8, §9).

Each ``Controller`` owns one ``Store`` and one instance. Guest faults never
raise: they come back as ``Fault``. Only host bugs raise.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Sequence
from typing import Any, Final

from arena.sandbox import _ffi, _native
from arena.sandbox._admission import error_text, new_store, prepare, trap_text
from arena.sandbox._engine import epoch_ticks
from arena.sandbox._limits import BUFFER_BYTES, RECORD_BYTES, Fault, Limits
from arena.sandbox._trap_codes import INTERRUPT, OUT_OF_FUEL
from sim import MAX_NOTE_BYTES, ForfeitKind

__all__ = ["Controller", "floor_calls"]

_MAX_RECORDS_IN_BUFFER: Final = BUFFER_BYTES // RECORD_BYTES
_NEW, _READY, _DEAD = 0, 1, 2
# The hot path's calls, bound once (a module attribute lookup per call adds up).
_set_fuel = _ffi.set_fuel
_set_deadline = _ffi.set_epoch_deadline
_call_unchecked = _ffi.call_unchecked
_get_fuel = _ffi.get_fuel
_memory_data_size = _ffi.memory_data_size
_ONE = _ffi.ONE
_INIT, _FUEL, _MEMORY, _TRAP, _TIMEOUT = (
    ForfeitKind.INIT,
    ForfeitKind.FUEL,
    ForfeitKind.MEMORY,
    ForfeitKind.TRAP,
    ForfeitKind.TIMEOUT,
)


class _GuestFault(Exception):
    """Internal: a guest fault during init, turned into a ``Fault``."""

    def __init__(self, fault: Fault) -> None:
        super().__init__(fault.detail)
        self.fault = fault


class Controller:
    """One controller instance for one match. Never raises for guest faults.

    Call ``init`` once, then ``tick`` once per game tick until a fault. Calling
    ``init`` twice, or ``tick`` before a successful ``init`` or after a fault,
    is a host bug and raises ``RuntimeError``.
    """

    fuel_total: int
    """Fuel of init and all ticks so far; failures are charged their whole budget."""
    fuel_peak: int
    """The largest fuel of a single tick."""
    last_fuel: int
    """Fuel of the latest tick call (0 before the first tick)."""
    last_note: str | int | None
    """The latest tick's debug note (rules §9.9): its text, the length it returned
    when that was out of 0..256 (the note is dropped), or None without the export."""
    last_memory: int
    """The linear memory's size in bytes where the latest call ended (init's last call,
    then each tick's): the reading the cap judges (rules §8.5), so after a memory fault
    the size that broke it. 0 before init."""

    def __init__(self, blob: bytes, limits: Limits, *, native: bool = True) -> None:
        """``native``: whether ``tick`` makes its call from C (``arena.sandbox._native``)
        where that is built and the module has no ``foray_note``; else through ctypes.
        Both take the same steps, so the results are the same."""
        self.blob: bytes = bytes(blob)
        self._native = native
        self.limits: Limits = limits
        self.sha256: str = hashlib.sha256(self.blob).hexdigest()
        self.fuel_total = 0
        self.fuel_peak = 0
        self.last_fuel = 0
        self.last_note = None
        self.last_memory = 0
        self._phase = _NEW
        self._store: _ffi.Store | None = None
        # Preallocated ctypes arguments for the argtype-free calls below.
        self._ctx = _ffi.Address(0)
        self._tick_budget = _ffi.U64(limits.fuel_per_tick)
        self._tick_deadline = _ffi.U64(epoch_ticks(limits.tick_timeout))
        self._vals = _ffi.ValRaw1()
        self._val = self._vals[0]  # shares the array's memory: index it once, not per call
        self._fuel_per_tick = limits.fuel_per_tick
        self._max_memory = limits.max_memory_bytes
        self._trap = _ffi.Address()  # where a call puts the trap it returns
        self._trap_ref = _ffi.ref(self._trap)
        self._fuel_left = _ffi.U64(0)
        self._fuel_ref = _ffi.ref(self._fuel_left)
        # The instance's exports, and pointers to them, from init on.
        self._memory = _ffi.MemoryHandle()
        self._memory_ref = _ffi.ref(self._memory)
        self._tick_func = _ffi.FuncHandle()
        self._tick_ref = _ffi.ref(self._tick_func)
        self._note_ref: object | None = None  # set when the module exports foray_note
        self._view = memoryview(b"")
        self._buffer_address = 0
        # The tick call made from C, once init succeeded (None: the ctypes path).
        self._fast: Any = None
        self._fast_memory = 0  # its code for memory over the cap

    @property
    def has_note(self) -> bool:
        """Whether the module exports ``foray_note`` (known after a successful init)."""
        return self._note_ref is not None

    # ---- init ----------------------------------------------------------

    def init(self, message: bytes) -> Fault | None:
        """Compile (cached), instantiate, then call ``foray_buffer`` and ``foray_init``.

        The start function, ``foray_buffer`` and ``foray_init`` share one
        ``init_fuel`` budget. Any failure is an ``init`` fault charged the whole
        budget, except a fired wall-clock backstop, which is ``timeout`` (the
        one non-deterministic kind is recorded as such). An init that returns
        with no fuel left has run out of ``init_fuel`` too (rules §8.6).
        """
        if self._phase != _NEW:
            raise RuntimeError("Controller.init called twice")
        if len(message) > BUFFER_BYTES:
            raise ValueError(f"INIT message is {len(message)} bytes, over {BUFFER_BYTES}")
        try:
            used = self._init(bytes(message))
        except _GuestFault as exc:
            self.fuel_total += self.limits.init_fuel
            self.close()
            return exc.fault
        self.fuel_total += used
        self._phase = _READY
        self._fast = self._tick_call()
        return None

    def _tick_call(self) -> Any:
        """The tick call made from C, or None for the ctypes path: without the native
        module, when not asked for, or for a module with ``foray_note`` (whose second
        call the ctypes path makes)."""
        module = _native.load() if self._native else None
        if module is None or self._note_ref is not None:
            return None
        self._fast_memory = module.MEMORY
        return module.TickCall(
            *_ffi.function_addresses(),
            int(self._ctx.value or 0),
            _ffi.address_of(self._tick_func),
            _ffi.address_of(self._vals),
            _ffi.address_of(self._trap),
            _ffi.address_of(self._memory),
            _ffi.address_of(self._fuel_left),
            self._buffer_address,
            BUFFER_BYTES,
            _MAX_RECORDS_IN_BUFFER,
            self._fuel_per_tick,
            int(self._tick_deadline.value),
            self._max_memory,
        )

    def _init(self, message: bytes) -> int:
        limits = self.limits
        module = prepare(self.blob, self.sha256, limits)
        if isinstance(module, Fault):
            # init, or timeout when the compile backstop fired (rules §8.7).
            raise _GuestFault(Fault(module.kind, f"module not admissible: {module.detail}"))
        # The init backstop bounds the guest's run, not our compile above.
        started = time.monotonic()
        store = new_store(limits)
        self._store = store
        self._ctx.value = store.context
        store.set_fuel(limits.init_fuel)
        store.set_epoch_deadline(epoch_ticks(limits.init_timeout))
        try:
            instance = store.instantiate(module)
        except _ffi.Trap as trap:
            code = trap.code
            if code == INTERRUPT:
                raise _GuestFault(self._init_timeout()) from None
            # A trap with no wasm frame struck before the start function ran
            # (while segments were written): say so, not "the start function".
            who = "the start function" if trap.frame is not None else "instantiation"
            if code == OUT_OF_FUEL:
                raise _GuestFault(Fault(_INIT, f"{who} ran out of init_fuel")) from None
            raise _GuestFault(Fault(_INIT, f"{who} trapped: {trap_text(trap)}")) from None
        except _ffi.WasmtimeError as exc:
            detail = error_text(exc)
            raise _GuestFault(Fault(_INIT, f"instantiation failed: {detail}")) from None
        # Each export's kind and type was checked at admission.
        memory = instance.memory("memory")
        buffer_func = instance.func("foray_buffer")
        init_func = instance.func("foray_init")
        tick_func = instance.func("foray_tick")
        assert memory is not None and tick_func is not None
        assert buffer_func is not None and init_func is not None
        self._memory = memory
        self._memory_ref = _ffi.ref(memory)
        self._tick_func = tick_func
        self._tick_ref = _ffi.ref(tick_func)
        note_func = instance.func("foray_note")
        if note_func is not None:
            self._note_ref = _ffi.ref(note_func)  # which keeps the handle
        self._check_init_memory("instantiation")

        def remaining() -> float:
            return max(0.0, limits.init_timeout - (time.monotonic() - started))

        store.set_epoch_deadline(epoch_ticks(remaining()))
        address = self._init_call(buffer_func, None, "foray_buffer")
        self._check_init_memory("foray_buffer")
        address &= 0xFFFF_FFFF  # the address is read as unsigned
        size = self._memory_size()
        if address + BUFFER_BYTES > size:
            raise _GuestFault(
                Fault(
                    _INIT,
                    f"foray_buffer returned {address:#x}: the {BUFFER_BYTES}-byte buffer"
                    f" does not lie inside memory ({size} bytes)",
                )
            )
        # The memory never moves (memory_may_move is off) and never shrinks,
        # so a view of the buffer stays valid for the store's whole life.
        base = _ffi.memory_data(self._ctx, self._memory_ref)
        self._buffer_address = base + address
        self._view = memoryview(_ffi.Buffer.from_address(base + address)).cast("B")
        self._view[: len(message)] = message
        store.set_epoch_deadline(epoch_ticks(remaining()))
        status = self._init_call(init_func, len(message), "foray_init")
        self._check_init_memory("foray_init")
        if status != 0:
            raise _GuestFault(Fault(_INIT, f"foray_init returned {status}, expected 0"))
        left = self._read_fuel()
        if left == 0:  # spent to the last unit: exhausted, as at a check (rules §8.6)
            raise _GuestFault(Fault(_INIT, "foray_init ran out of init_fuel"))
        return limits.init_fuel - left

    def _init_call(self, func: _ffi.FuncHandle, arg: int | None, name: str) -> int:
        vals = self._vals
        if arg is not None:
            vals[0].i32 = arg
        err = _ffi.call_unchecked(self._ctx, _ffi.ref(func), vals, _ffi.ONE, self._trap_ref)
        fault = self._classify(err)
        if fault is None:
            return int(vals[0].i32)
        kind, detail = fault
        if kind == _TIMEOUT:
            raise _GuestFault(self._init_timeout())
        if kind == _MEMORY:
            raise _GuestFault(Fault(_INIT, f"{name}: {detail}"))
        if kind == _FUEL:
            raise _GuestFault(Fault(_INIT, f"{name} ran out of init_fuel"))
        raise _GuestFault(Fault(_INIT, f"{name} trapped: {detail}"))

    def _init_timeout(self) -> Fault:
        return Fault(
            _TIMEOUT, f"init exceeded the {self.limits.init_timeout:g} s wall-clock backstop"
        )

    def _check_init_memory(self, where: str) -> None:
        size = self.last_memory = self._memory_size()
        if size > self.limits.max_memory_bytes:
            raise _GuestFault(
                Fault(
                    _INIT,
                    f"memory is {size} bytes after {where},"
                    f" over max_memory_bytes {self.limits.max_memory_bytes}",
                )
            )

    # ---- shared low-level helpers ---------------------------------------

    def _memory_size(self) -> int:
        return int(_ffi.memory_data_size(self._ctx, self._memory_ref))

    def _read_fuel(self) -> int:
        err = _ffi.get_fuel(self._ctx, self._fuel_ref)
        if err:
            raise _ffi.WasmtimeError.take(err)
        return int(self._fuel_left.value)

    def _classify(self, err: int | None) -> tuple[ForfeitKind, str] | None:
        """Classify how a call ended: None on success, else (kind, detail).

        kind is memory, fuel, timeout or trap. Memory wins over everything:
        memory never shrinks, so once it is over the cap, every way the call
        could have ended (finished, trapped, out of fuel) is a memory fault.
        """
        if err:
            # Not a trap: wasmtime refused the call itself, which is our bug.
            raise _ffi.WasmtimeError.take(err)
        pointer = self._trap.value
        if not pointer:
            return None
        trap = _ffi.Trap.take(pointer)  # read, then freed
        self._trap.value = None
        size = self.last_memory = self._memory_size()
        if size > self.limits.max_memory_bytes:
            return _MEMORY, (
                f"memory is {size} bytes, over max_memory_bytes {self.limits.max_memory_bytes}"
                f" (the call ended with: {trap_text(trap)})"
            )
        code = trap.code
        if code == OUT_OF_FUEL:
            return _FUEL, "out of fuel"
        if code == INTERRUPT:
            return _TIMEOUT, "wall-clock backstop fired"
        return _TRAP, trap_text(trap)

    # ---- tick ------------------------------------------------------------

    def tick(self, message: bytes, max_records: int) -> tuple[int, bytes] | Fault:
        """Run one ``foray_tick`` call with ``fuel_per_tick`` fuel.

        Writes ``message`` at the buffer's start (the rest is not cleared).
        Returns ``(n, raw)`` with ``raw`` the first ``n * 12`` buffer bytes when
        ``0 <= n <= max_records`` and the records fit in the buffer, else
        ``(n, b"")`` for the caller to reject; or a ``Fault``.
        """
        fast = self._fast
        if fast is not None:  # READY (close drops it): the same steps, made from C
            got = fast.call(message, max_records)
            if got.__class__ is tuple:
                count, records, spent, self.last_memory = got
                if spent == self._fuel_per_tick:
                    return self._exhausted()
                self.last_fuel = spent
                self.fuel_total += spent
                if spent > self.fuel_peak:
                    self.fuel_peak = spent
                return count, records
            if got == self._fast_memory:
                return self._memory_fault(fast.memory)
            return self._tick_fault(fast.error)
        if self._phase != _READY:
            raise RuntimeError("Controller.tick called before a successful init or after a fault")
        size = len(message)
        if size > BUFFER_BYTES:
            raise ValueError(f"OBS message is {size} bytes, over {BUFFER_BYTES}")
        # The hot path: raw ctypes calls without argtypes (see _ffi._raw_function).
        ctx = self._ctx
        _set_fuel(ctx, self._tick_budget)
        _set_deadline(ctx, self._tick_deadline)
        view = self._view
        view[:size] = message
        val = self._val
        val.i32 = size
        err = _call_unchecked(ctx, self._tick_ref, self._vals, _ONE, self._trap_ref)
        if err or self._trap:
            return self._tick_fault(err)
        memory: int = _memory_data_size(ctx, self._memory_ref)
        self.last_memory = memory
        if memory > self._max_memory:
            return self._memory_fault(memory)
        n: int = val.i32
        # The records are taken before a note call may overwrite the buffer.
        raw = (
            view[: n * RECORD_BYTES].tobytes()
            if 0 <= n <= max_records and n <= _MAX_RECORDS_IN_BUFFER
            else b""
        )
        if self._note_ref is not None:
            fault = self._note()
            if fault is not None:
                return fault
        _get_fuel(ctx, self._fuel_ref)
        used: int = self._fuel_per_tick - self._fuel_left.value
        if used == self._fuel_per_tick:
            return self._exhausted("foray_note" if self._note_ref is not None else "")
        self.last_fuel = used
        self.fuel_total += used
        if used > self.fuel_peak:
            self.fuel_peak = used
        return n, raw

    def _note(self) -> Fault | None:
        """Call ``foray_note`` on what is left of the tick's fuel and backstop (rules §9.9)."""
        ctx = self._ctx
        err = _call_unchecked(ctx, self._note_ref, self._vals, _ONE, self._trap_ref)
        if err or self._trap:
            return self._tick_fault(err, "foray_note")
        memory: int = _memory_data_size(ctx, self._memory_ref)
        self.last_memory = memory
        if memory > self._max_memory:
            return self._memory_fault(memory, " after foray_note")
        length: int = self._val.i32
        if 0 <= length <= MAX_NOTE_BYTES:
            self.last_note = self._view[:length].tobytes().decode("utf-8", "replace")
        else:
            self.last_note = length  # dropped: the frame records the length it returned
        return None

    def _memory_fault(self, memory: int, where: str = "") -> Fault:
        """A call returned with memory over the cap: charged the fuel it used (rules §8.6).

        ``where`` names the call when it was not ``foray_tick`` (" after foray_note").
        """
        _get_fuel(self._ctx, self._fuel_ref)
        used = self._fuel_per_tick - int(self._fuel_left.value)
        self.last_memory = memory
        self.last_fuel = used
        self.fuel_total += used
        self.fuel_peak = max(self.fuel_peak, used)
        self.close()
        return Fault(
            _MEMORY, f"memory is {memory} bytes{where}, over max_memory_bytes {self._max_memory}"
        )

    def _exhausted(self, call: str = "") -> Fault:
        """The tick's calls returned with no fuel left: out of fuel, as at a check.

        wasmtime checks fuel only at function entries and loop headers, where a
        count of 0 left traps; a call that returns first, between two checks,
        with its budget spent (its reading stops at 0) has exhausted it as well
        (rules §8.6). Charged the whole tick, like every ``fuel`` forfeit.
        """
        budget = self._charge_whole_tick()
        return Fault(_FUEL, f"{call or 'tick'} ran out of fuel_per_tick ({budget})")

    def _charge_whole_tick(self) -> int:
        """A tick that ended in a fault: charged its whole budget (returned), then closed."""
        budget = self._fuel_per_tick
        self.last_fuel = budget
        self.fuel_total += budget
        self.fuel_peak = max(self.fuel_peak, budget)
        self.close()
        return budget

    def _tick_fault(self, err: int | None, call: str = "") -> Fault:
        """A tick's call trapped, ran out of fuel or was interrupted: charged the whole tick.

        ``call`` names the call when it was not ``foray_tick`` ("foray_note"), so
        the author knows which of the tick's calls faulted.
        """
        fault = self._classify(err)
        assert fault is not None
        kind, detail = fault
        # After a trap the store's fuel reading is unreliable: charge it all.
        budget = self._charge_whole_tick()
        backstop = f"{self.limits.tick_timeout:g} s wall-clock backstop"
        if kind == _FUEL:
            detail = f"{call or 'tick'} ran out of fuel_per_tick ({budget})"
        elif kind == _TIMEOUT:
            detail = (
                f"{call} exceeded the tick's {backstop}"
                if call
                else f"tick exceeded the {backstop}"
            )
        elif call:
            detail = f"{call}: {detail}" if kind == _MEMORY else f"{call} trapped: {detail}"
        return Fault(kind, detail)

    def close(self) -> None:
        """Drop the instance and its memory now; the controller is then dead."""
        self._phase = _DEAD
        self._fast = None  # before what its pointers point into
        self._view = memoryview(b"")
        self._ctx.value = None
        if self._store is not None:
            self._store.close()
            self._store = None


def floor_calls(
    ctrl: Controller, messages: Sequence[bytes], clock: Callable[[], float]
) -> list[float]:
    """How long each message's call takes at the least through ctypes, by ``clock``.

    A loop of the five steps no tick's call can do without, with nothing around
    them: set the fuel, write the message, call ``foray_tick``, copy the records,
    read the fuel (no deadline, no memory check, no bookkeeping). ``arena bench``
    measures a tick against it, its floor; nothing is played this way. ``ctrl``
    has passed its init; it is spent afterwards (its fuel figures are not kept).
    """
    ctx, budget, deadline = ctrl._ctx, ctrl._tick_budget, ctrl._tick_deadline
    view, vals, val = ctrl._view, ctrl._vals, ctrl._val
    tick_ref, trap_ref, fuel_ref = ctrl._tick_ref, ctrl._trap_ref, ctrl._fuel_ref
    spent: list[float] = []
    for message in messages:
        size = len(message)
        _set_deadline(ctx, deadline)  # the backstop, outside the timing
        t0 = clock()
        _set_fuel(ctx, budget)
        view[:size] = message
        val.i32 = size
        _call_unchecked(ctx, tick_ref, vals, _ONE, trap_ref)
        view[: val.i32 * RECORD_BYTES].tobytes()
        _get_fuel(ctx, fuel_ref)
        spent.append(clock() - t0)
        if ctrl._trap:
            raise RuntimeError("the floor's module trapped")
    return spent
