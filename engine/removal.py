"""The removal pipeline: soft delete and restore, and the hard deletes (one memory, one message with
every memory derived from it, a whole user) that leave no recoverable copy in any file of the store.

The facade (engine.py) checks the arguments, finds the memory and holds the write lock; each method
here is one ledger transaction with its index outbox rows (sync.write), then a hard delete's clean-up.
"""
from __future__ import annotations

from . import extraction as extractlib
from .index import VectorIndex
from .model import Memory, NotFoundError
from .recall import SpeakerCache
from .storage import Connection, Ledger, now_iso
from .sync import IndexSync


class Removal:
    def __init__(self, *, ledger: Ledger, sync: IndexSync, index: VectorIndex, speakers: SpeakerCache):
        self.ledger = ledger
        self.sync = sync
        self.index = index
        self.speakers = speakers

    def delete(self, memory: Memory) -> Memory:
        """Soft delete: the memory stays in the ledger as 'deleted' and leaves recall."""
        if memory.status == "deleted":
            return memory

        def change(conn: Connection) -> None:
            self.ledger.soft_delete(conn, memory.id, now_iso())
            if memory.status == "active":
                self.ledger.outbox(conn, "remove", memory.user_id, memory.id)

        self.sync.write(change, users=[memory.user_id])
        return self.ledger.get(memory.id)

    def forget_user(self, user_id: str) -> dict[str, int]:
        """Hard-delete every memory and message of one user, and nobody else's."""
        def change(conn: Connection) -> tuple[int, int]:
            removed = self.ledger.delete_user(conn, user_id)
            self.ledger.outbox(conn, "drop_user", user_id)
            return removed

        memories, messages = self.sync.write(change, users=[user_id])
        self._after_hard_delete(user_id, purge_vectors=False)
        return {"memories": memories, "messages": messages}

    def erase(self, memory: Memory) -> dict[str, int]:
        """Hard delete of one memory, and of its source message when no other memory was derived from it."""
        def change(conn: Connection) -> dict[str, int]:
            erased = self.ledger.erase_memories(conn, [memory.id], now_iso())
            if memory.status == "active":
                self.ledger.outbox(conn, "remove", memory.user_id, memory.id)
            messages = 0
            if memory.message_id is not None and not self.ledger.memories_of_message(conn, memory.message_id):
                messages = self.ledger.delete_message(conn, memory.message_id)
            return {"memories": erased, "messages": messages}

        result = self.sync.write(change, users=[memory.user_id])
        self._after_hard_delete(memory.user_id)
        return result

    def erase_message(self, message_id: int, expected_owner: str | None) -> dict[str, int]:
        """Hard delete of one source message and of every memory derived from it. A message of another
        user than `expected_owner` (when given) is not found."""
        def change(conn: Connection) -> tuple[str, int]:
            owner = self.ledger.message_owner(conn, message_id)
            if owner is None or (expected_owner is not None and owner != expected_owner):
                raise NotFoundError(f"no message #{message_id}")
            derived = self.ledger.memories_of_message(conn, message_id)
            erased = self.ledger.erase_memories(conn, [mid for mid, _ in derived], now_iso())
            for mid, status in derived:
                if status == "active":
                    self.ledger.outbox(conn, "remove", owner, mid)
            self.ledger.delete_message(conn, message_id)
            return owner, erased

        owner, erased = self.sync.write(change, users=[expected_owner] if expected_owner is not None else ())
        self._after_hard_delete(owner)
        return {"memories": erased, "messages": 1}

    def _after_hard_delete(self, user_id: str, *, purge_vectors: bool = True) -> None:
        """Leave no recoverable copy: rewrite the user's vectors (forget_user drops them whole), compact
        the index files, delete the applied outbox rows and truncate the WAL, whose frames hold the rows."""
        if purge_vectors:
            self.sync.purge_user(user_id)
        else:
            self.sync.flush()
            self.index.compact()
        self.sync.forget_applied()
        self.ledger.checkpoint()
        self.speakers.forget(user_id)

    def restore(self, memory: Memory) -> Memory:
        """Undo a soft delete (see MemoryEngine.restore)."""
        if memory.status != "deleted":
            raise ValueError(f"memory #{memory.id} is not deleted (it is {memory.status}); nothing to restore")
        target = "superseded" if memory.replaced_by is not None else "active"

        def change(conn: Connection) -> None:
            if target == "active":
                self._check_restorable(conn, memory)
            self.ledger.restore_deleted(conn, memory.id, target, now_iso())
            if target == "active":
                self.ledger.outbox(conn, "add", memory.user_id, memory.id)

        try:
            self.sync.write(change, users=[memory.user_id])
        except self.ledger.IntegrityError as exc:  # a schema invariant the checks above did not foresee
            raise ValueError(f"cannot restore #{memory.id}: {exc}") from None
        return self.ledger.get(memory.id)

    def _check_restorable(self, conn: Connection, memory: Memory) -> None:
        slot = (memory.user_id, memory.subject, memory.attribute)
        holders = self.ledger.slot_active(conn, slot)
        blocking = [m for m in holders if not memory.multi_valued or not m.multi_valued]
        if blocking:
            raise ValueError(
                f"cannot restore #{memory.id}: #{blocking[0].id} ({blocking[0].text!r}) now holds its single-valued "
                f"slot ({memory.subject}, {memory.attribute}); delete that one first")
        same = self.ledger.slot_same_value(conn, slot, extractlib.value_key(memory.value))
        if same is not None:
            raise ValueError(f"cannot restore #{memory.id}: #{same.id} holds the same value already")
