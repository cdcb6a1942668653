"""The admin's account controls: unlock, disable, enable, reset a password, end
every session -- each for the admin only (403 to every other role) and each
written to the audit log (who, when, what, to whom).

- ``GET /api/admin/accounts``: every account, disabled or not, and the clients
  locked out of it now
- ``POST /api/admin/accounts/{username}/unlock``: forget its failed logins
  from every client (the lock a stranger's or the user's own guesses made)
- ``POST /api/admin/accounts/{username}/disable`` (ends its sessions) and
  ``.../enable``
- ``POST /api/admin/accounts/{username}/password`` ``{"password"}``: a new
  password under the policy of :mod:`punto.store.passwords`; ends its sessions
- ``POST /api/admin/accounts/{username}/revoke``: ends every session it has

Each takes an ``Idempotency-Key`` (:mod:`punto.server.routes.idempotency`).

A session ended here stops at once in this process and, through
``session_invalidations``, within a fraction of a second in any other (see
:class:`punto.server.security.auth.SessionCache`).  The admin page (``/admin``) has a
button for each.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse
from pydantic import BaseModel, ConfigDict, Field

from punto.server.routes import errors
from punto.server.routes.idempotency import IdempotencyKey, after_acting, respond
from punto.server.routes.pages import HEADERS, STATIC
from punto.server.security.auth import authenticate
from punto.store.accounts import PermissionDeniedError, UnknownUserError, User, UserRole
from punto.store.lockout import STRANGERS
from punto.store.passwords import MAX_PASSWORD_LENGTH
from punto.store.requests import Answer

if TYPE_CHECKING:
    from punto.server.services import Server

router = APIRouter(prefix="/api/admin", tags=["admin"], responses=errors.RESPONSES)
#: The admin page, served like the others (:mod:`punto.server.routes.pages`).
page_router = APIRouter()


@page_router.get("/admin", include_in_schema=False)
def page() -> HTMLResponse:
    """The admin's account controls (the page shows them to the admin only)."""
    return HTMLResponse((STATIC / "admin.html").read_text("utf-8"), headers=HEADERS)


class PasswordIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    password: Annotated[str, Field(min_length=1, max_length=MAX_PASSWORD_LENGTH)]


def _server(request: Request) -> Server:
    server: Server = request.app.state.server
    return server


def _admin(request: Request, action: str) -> User:
    """The admin making the request; 403 for every other role (401 without a session)."""
    server = _server(request)
    user = authenticate(server.accounts, request, server.sessions)
    if user.role is not UserRole.ADMIN:
        raise PermissionDeniedError(
            f"a {user.role.words} may not {action}",
            hint="accounts are the admin's: ask the admin",
        )
    return user


def _account(server: Server, username: str) -> User:
    account = server.accounts.find_user(username)
    if account is None:
        raise UnknownUserError(
            f"there is no account {username!r}", hint="GET /api/admin/accounts lists them"
        )
    return account


def _account_json(server: Server, user: User) -> dict[str, Any]:
    return {
        "id": user.id,
        "username": user.username,
        "role": user.role.value,
        "disabled": user.disabled,
        "locked": [
            {
                "client": client,
                "reason": _lock_reason(client, locks),
                "until": until.isoformat(),
            }
            for client, until, locks in server.accounts.locks(user.username)
        ],
    }


def _lock_reason(client: str, locks: int) -> str:
    """Why a lock holds, in words for the admin's list."""
    again = "" if locks <= 1 else f" (lock {locks} in a row, each twice as long)"
    if client == STRANGERS:
        return (
            "too many failed logins from addresses the account has not logged in from: "
            "every such address is held; the account's own addresses and browsers are not" + again
        )
    return f"too many failed logins in a row from {client}: that address is held" + again


def _act(
    request: Request,
    username: str,
    action: str,
    words: str,
    change: Callable[[Server, User], dict[str, Any]],
    key: str | None,
) -> JSONResponse:
    """The admin's ``change`` to an account, once per Idempotency-Key ``key``
    (a retry gets the first answer; the key for another change is refused).
    What is asked is the action and the account: a new password is not kept
    in the store, even hashed, so a retry of a reset is the same reset."""
    admin = _admin(request, words)
    server = _server(request)
    account = _account(server, username)

    def act() -> Answer:
        detail = change(server, account)
        server.sessions.forget_account(account.id)  # this process at once; others poll
        server.audit.record(action, user=admin, account=account.username, **detail)
        body = {**_account_json(server, server.accounts.get_user(account.id)), **detail}
        return Answer(200, body)

    asked = {"op": f"admin_{action}", "account": account.username}
    answer, fresh = after_acting(server, admin, key, asked, act, where=("", action))
    return respond(answer, fresh)


@router.get("/accounts")
async def accounts(request: Request) -> list[dict[str, Any]]:
    """Every account, whether it is disabled, and the clients locked out of it now."""

    def work() -> list[dict[str, Any]]:
        _admin(request, "list the accounts")
        server = _server(request)
        return [_account_json(server, user) for user in server.accounts.users()]

    return await asyncio.to_thread(work)


@router.post("/accounts/{username}/unlock")
async def unlock(
    username: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Forget the account's failed logins from every client: its locks end."""

    def change(server: Server, account: User) -> dict[str, Any]:
        return {"unlocked": server.accounts.unlock(account.username)}

    return await asyncio.to_thread(
        _act, request, username, "unlock", "unlock accounts", change, idempotency_key
    )


@router.post("/accounts/{username}/disable")
async def disable(
    username: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Disable the account: no login, and every session it has ends."""

    def change(server: Server, account: User) -> dict[str, Any]:
        if account.id == _admin(request, "disable accounts").id:
            raise PermissionDeniedError(
                "the admin may not disable their own account",
                hint="someone must be left to enable accounts",
            )
        server.accounts.set_disabled(account.id, True)
        return {}

    return await asyncio.to_thread(
        _act, request, username, "disable", "disable accounts", change, idempotency_key
    )


@router.post("/accounts/{username}/enable")
async def enable(
    username: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """Enable a disabled account (it logs in again with its password)."""

    def change(server: Server, account: User) -> dict[str, Any]:
        server.accounts.set_disabled(account.id, False)
        return {}

    return await asyncio.to_thread(
        _act, request, username, "enable", "enable accounts", change, idempotency_key
    )


@router.post("/accounts/{username}/password")
async def reset_password(
    username: str, body: PasswordIn, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """A new password (under the password policy); every session of the account ends."""

    def change(server: Server, account: User) -> dict[str, Any]:
        server.accounts.set_password(account.id, body.password)
        return {}

    return await asyncio.to_thread(
        _act, request, username, "reset_password", "reset passwords", change, idempotency_key
    )


@router.post("/accounts/{username}/revoke")
async def revoke(
    username: str, request: Request, idempotency_key: IdempotencyKey = None
) -> JSONResponse:
    """End every session of the account, in every process of the server."""

    def change(server: Server, account: User) -> dict[str, Any]:
        return {"sessions_ended": server.accounts.logout_all(account.id)}

    return await asyncio.to_thread(
        _act,
        request,
        username,
        "revoke_sessions",
        "end other accounts' sessions",
        change,
        idempotency_key,
    )
