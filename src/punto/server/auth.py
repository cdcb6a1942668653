"""Who is asking: session tokens (Bearer header or cookie) and role checks.

A player acts only for themselves and only as a player ("a dealer cannot
bet"); a table action needs a table position at least as high as the one
the rules name (MBS 6.2: or any higher position); the admin manages
accounts and tables and holds no table position.
"""

from __future__ import annotations

from fastapi import Request, WebSocket

from punto.store.accounts import (
    Accounts,
    PermissionDeniedError,
    SessionInvalidError,
    User,
    UserRole,
)
from punto.table.roles import Role

#: The session cookie set at login.
COOKIE = "punto_session"
#: Longest token accepted (a real one is 43 characters).
MAX_TOKEN = 200


def token_from(request: Request | WebSocket) -> str | None:
    """The session token of a request: ``Authorization: Bearer``, else the
    cookie (else, for a WebSocket, the ``token`` query parameter)."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() == "bearer" and value.strip():
        return value.strip()[:MAX_TOKEN]
    cookie = request.cookies.get(COOKIE)
    if cookie:
        return cookie[:MAX_TOKEN]
    if isinstance(request, WebSocket):
        query = request.query_params.get("token")
        if query:
            return query[:MAX_TOKEN]
    return None


def authenticate(accounts: Accounts, request: Request | WebSocket) -> User:
    token = token_from(request)
    if not token:
        raise SessionInvalidError(
            "you are not logged in", hint="log in: POST /api/auth/login, then send the token"
        )
    return accounts.authenticate(token)


def optional_user(accounts: Accounts, request: Request | WebSocket) -> User | None:
    if not token_from(request):
        return None
    try:
        return authenticate(accounts, request)
    except SessionInvalidError:
        return None


def table_role(user: User, required: Role, action: str) -> Role:
    """The table position ``user`` acts in, if it may ``action`` (which takes ``required``)."""
    role = user.role.table_role
    if role is None:
        raise PermissionDeniedError(
            f"an admin may not {action}",
            hint="the admin manages accounts and tables; log in with a table position",
        )
    if not role.may_act_as(required):
        higher = "" if required is Role.PLAYER else " or higher"
        raise PermissionDeniedError(
            f"a {role.words} may not {action}",
            clause="6.2",
            hint=f"it takes a {required.words}{higher}",
        )
    return role


def require_player(user: User, action: str) -> None:
    """Only a player bets, and only from their own account."""
    if user.role is not UserRole.PLAYER:
        raise PermissionDeniedError(
            f"a {user.role.words} may not {action}",
            hint="only players bet, each from their own account",
        )


def require_manager_or_admin(user: User, action: str) -> None:
    """Setting up tables and money at the cage: a pit manager or higher, or the admin."""
    if user.role is UserRole.ADMIN:
        return
    table_role(user, Role.PIT_MANAGER, action)


def is_staff(user: User | None) -> bool:
    return user is not None and user.role is not UserRole.PLAYER
