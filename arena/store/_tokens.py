"""The tokens table: the site's tokens, by role, kept as digests only.

The store never sees a token: the site (``web``) makes one, shows it once and
hands the store its digest (the sha256 of its text), its role and a name. A
revoked token stays listed, with when it was revoked; its name is free again.
"""

from __future__ import annotations

import sqlite3
from typing import Final

from arena._errors import ArenaError
from arena.store._blobs import check_sha256
from arena.store._errors import NotInStoreError
from arena.store._names import name_problem
from arena.store._records import TokenRecord, TokenRole
from arena.store._store import Core, parse_stamp, utc_now

__all__ = ["Tokens"]

_TOKENS: Final = "SELECT * FROM tokens"


class Tokens(Core):
    """``Store``'s tokens: add one (its digest), list them, revoke one, the live ones."""

    def add_token(self, name: str, role: TokenRole, digest: str) -> TokenRecord:
        """Record a new token of ``role`` under ``name`` by its ``digest`` (64 hex digits).

        ``ArenaError`` for a name that is not one (``name_problem``: a control
        character, ...) or that a live token holds already.
        """
        problem = name_problem(name)
        if problem is not None:
            raise ArenaError(f"token name: {problem}")
        role = TokenRole(role)
        check_sha256(digest, "token digest")

        def tx(conn: sqlite3.Connection) -> TokenRecord:
            held = conn.execute(
                "SELECT id FROM tokens WHERE name = ? AND revoked_at IS NULL", (name,)
            ).fetchone()
            if held is not None:
                raise ArenaError(
                    f"the token name {name!r} is held by token {held[0]}: choose another"
                    " (or revoke that one first)"
                )
            cur = conn.execute(
                "INSERT INTO tokens (name, role, digest, created_at) VALUES (?, ?, ?, ?)",
                (name, str(role), digest, utc_now()),
            )
            assert cur.lastrowid is not None
            return _one(conn, cur.lastrowid)

        return self._db.write(tx, f"recording token {name!r}")

    def tokens(self, *, include_revoked: bool = True) -> list[TokenRecord]:
        """The tokens, oldest first (the revoked ones too unless told otherwise)."""
        where = "" if include_revoked else " WHERE revoked_at IS NULL"
        rows = self._db.read(
            lambda c: c.execute(f"{_TOKENS}{where} ORDER BY id").fetchall(), "listing tokens"
        )
        return [_record(r) for r in rows]

    def revoke_token(self, ref: str) -> TokenRecord:
        """Revoke the live token named ``ref``, or with the id ``ref``; its record.

        A token revoked already is answered as it is. ``NotInStoreError`` if
        there is no such token.
        """

        def tx(conn: sqlite3.Connection) -> TokenRecord:
            row = conn.execute(
                f"{_TOKENS} WHERE name = ? AND revoked_at IS NULL", (ref,)
            ).fetchone()
            if row is None and ref.isascii() and ref.isdigit() and len(ref) <= 18:
                row = conn.execute(f"{_TOKENS} WHERE id = ?", (int(ref),)).fetchone()
            if row is None:
                raise NotInStoreError(f"no token {ref!r} in the store {self.path}")
            if row["revoked_at"] is None:
                conn.execute(
                    "UPDATE tokens SET revoked_at = ? WHERE id = ?", (utc_now(), row["id"])
                )
            return _one(conn, row["id"])

        return self._db.write(tx, f"revoking token {ref!r}")


def _record(row: sqlite3.Row) -> TokenRecord:
    return TokenRecord(
        id=row["id"],
        name=row["name"],
        role=TokenRole(row["role"]),
        digest=row["digest"],
        created_at=parse_stamp(row["created_at"]),
        revoked_at=None if row["revoked_at"] is None else parse_stamp(row["revoked_at"]),
    )


def _one(conn: sqlite3.Connection, token_id: int) -> TokenRecord:
    return _record(conn.execute(f"{_TOKENS} WHERE id = ?", (token_id,)).fetchone())
