"""User accounts, Argon2 passwords, sessions and lockout, on SQLite and PostgreSQL."""

from __future__ import annotations

import hashlib
import threading
from datetime import UTC, datetime, timedelta

import pytest
from argon2 import PasswordHasher
from sqlalchemy import select
from sqlalchemy.engine import Engine

from punto.errors import PuntoError
from punto.store import db
from punto.store.accounts import (
    AccountDisabledError,
    Accounts,
    AuthError,
    LoginFailedError,
    LoginLockedError,
    PasswordPolicyError,
    PermissionDeniedError,
    SessionInvalidError,
    UnknownUserError,
    User,
    UserExistsError,
    UsernameError,
    UserRole,
)
from punto.table.roles import Role

#: Cheap Argon2 parameters: the tests check behaviour, not hashing cost.
FAST = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
PASSWORD = "correct horse battery"


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 25, 20, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def accounts(engine: Engine, clock: Clock) -> Accounts:
    return Accounts(engine, hasher=FAST, clock=clock)


def test_a_user_logs_in_and_the_token_names_them(accounts: Accounts) -> None:
    ann = accounts.create_user("  Ann ", PASSWORD, UserRole.PIT_SUPERVISOR)
    assert ann.username == "ann"
    assert ann.role is UserRole.PIT_SUPERVISOR
    assert not ann.disabled
    session = accounts.login("ANN", PASSWORD)  # names are case-insensitive
    assert session.user == ann
    assert accounts.authenticate(session.token) == ann
    assert session.token not in repr(session)
    assert accounts.get_user(ann.id) == ann
    assert accounts.find_user("Ann") == ann
    assert accounts.find_user("zed") is None
    assert accounts.users() == [ann]


def test_passwords_are_stored_as_argon2id_and_tokens_only_as_their_hash(
    accounts: Accounts, engine: Engine
) -> None:
    ann = accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    session = accounts.login("ann", PASSWORD)
    with engine.connect() as conn:
        stored = conn.execute(
            select(db.accounts.c.password_hash).where(db.accounts.c.id == ann.id)
        ).scalar_one()
        tokens = conn.execute(select(db.sessions.c.token_hash)).scalars().all()
    assert stored.startswith("$argon2id$")
    assert PASSWORD not in stored
    assert tokens == [hashlib.sha256(session.token.encode()).hexdigest()]
    assert len(session.token) >= 43  # 32 random bytes


def test_new_users_need_a_free_valid_name_and_a_long_enough_password(accounts: Accounts) -> None:
    accounts.create_user("ann", PASSWORD, UserRole.PLAYER)
    with pytest.raises(UserExistsError, match="already a user 'ann'"):
        accounts.create_user("ANN", PASSWORD, UserRole.PLAYER)
    for name in ("", "with space", "-dash-first", "x" * 65, "tab\tname"):
        with pytest.raises(UsernameError):
            accounts.create_user(name, PASSWORD, UserRole.PLAYER)
    with pytest.raises(PasswordPolicyError, match="too short"):
        accounts.create_user("bob", "short", UserRole.PLAYER)
    with pytest.raises(PasswordPolicyError, match="too long"):
        accounts.create_user("bob", "x" * 2000, UserRole.PLAYER)
    with pytest.raises(ValueError, match="is not a valid UserRole"):
        accounts.create_user("bob", PASSWORD, "croupier")  # type: ignore[arg-type]
    assert [u.username for u in accounts.users()] == ["ann"]


def test_a_wrong_password_and_an_unknown_user_look_the_same(accounts: Accounts) -> None:
    accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    with pytest.raises(LoginFailedError) as wrong_password:
        accounts.login("ann", "not the password")
    with pytest.raises(LoginFailedError) as no_such_user:
        accounts.login("nobody", PASSWORD)
    assert str(wrong_password.value) == str(no_such_user.value)
    assert str(no_such_user.value) == (
        "the user name or password is wrong; check both and try again"
    )
    assert isinstance(no_such_user.value, AuthError)
    assert isinstance(no_such_user.value, PuntoError)


def test_five_failures_lock_the_name_until_the_lockout_ends(
    accounts: Accounts, clock: Clock
) -> None:
    accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    for _ in range(4):
        with pytest.raises(LoginFailedError):
            accounts.login("ann", "wrong password")
    with pytest.raises(LoginLockedError) as locked:
        accounts.login("ann", "wrong password")  # the fifth
    assert locked.value.until == clock.now + timedelta(minutes=15)
    assert "too many failed logins" in str(locked.value)
    clock.advance(minutes=14)
    with pytest.raises(LoginLockedError):
        accounts.login("ann", PASSWORD)  # even the right password, while locked
    clock.advance(minutes=1, seconds=1)
    assert accounts.login("ann", PASSWORD).user.username == "ann"
    # a success starts the count afresh
    for _ in range(4):
        with pytest.raises(LoginFailedError):
            accounts.login("ann", "wrong password")
    accounts.login("ann", PASSWORD)
    for _ in range(4):
        with pytest.raises(LoginFailedError):
            accounts.login("ann", "wrong password")


def test_unknown_names_lock_out_exactly_like_real_ones(accounts: Accounts, clock: Clock) -> None:
    accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    messages = {}
    for name in ("ann", "ghost"):
        seen = []
        for _ in range(6):
            try:
                accounts.login(name, "wrong password")
            except AuthError as error:
                seen.append((type(error).__name__, str(error)))
        messages[name] = seen
    assert messages["ann"] == messages["ghost"]
    assert [kind for kind, _ in messages["ann"]] == ["LoginFailedError"] * 4 + [
        "LoginLockedError"
    ] * 2


def test_old_failures_are_forgotten_and_an_admin_can_unlock(
    accounts: Accounts, clock: Clock
) -> None:
    accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    for _ in range(4):
        with pytest.raises(LoginFailedError):
            accounts.login("ann", "wrong password")
    clock.advance(minutes=16)  # four failures long ago do not count towards a lock
    with pytest.raises(LoginFailedError):
        accounts.login("ann", "wrong password")
    for _ in range(3):
        with pytest.raises(LoginFailedError):
            accounts.login("ann", "wrong password")
    with pytest.raises(LoginLockedError):
        accounts.login("ann", "wrong password")
    accounts.unlock("ANN")
    accounts.login("ann", PASSWORD)


def test_racing_failed_logins_lose_no_failure(engine: Engine, clock: Clock) -> None:
    accounts = Accounts(engine, hasher=FAST, clock=clock, max_failures=8)
    accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def fail() -> None:
        barrier.wait()
        try:
            accounts.login("ann", "wrong password")
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=fail) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(errors) == 8
    assert all(isinstance(e, AuthError) for e in errors), errors
    assert sum(isinstance(e, LoginLockedError) for e in errors) == 1  # the eighth locked it
    with pytest.raises(LoginLockedError):
        accounts.login("ann", PASSWORD)


def test_sessions_expire(accounts: Accounts, clock: Clock) -> None:
    accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    session = accounts.login("ann", PASSWORD)
    assert session.expires_at == clock.now + timedelta(hours=12)
    clock.advance(hours=11, minutes=59)
    accounts.authenticate(session.token)
    clock.advance(minutes=1)
    with pytest.raises(SessionInvalidError, match="expired at 2026-11-26 08:00 UTC; log in again"):
        accounts.authenticate(session.token)
    assert accounts.purge_sessions() == 1


def test_logout_ends_one_session_and_logout_all_every_one(accounts: Accounts) -> None:
    ann = accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    first, second, third = (accounts.login("ann", PASSWORD) for _ in range(3))
    accounts.logout(first.token)
    accounts.logout(first.token)  # twice is fine
    accounts.logout("no-such-token")
    with pytest.raises(SessionInvalidError, match="has ended"):
        accounts.authenticate(first.token)
    assert accounts.authenticate(second.token) == ann
    assert accounts.logout_all(ann.id) == 2
    for session in (second, third):
        with pytest.raises(SessionInvalidError):
            accounts.authenticate(session.token)
    for token in ("", "garbage", "x" * 500):
        with pytest.raises(SessionInvalidError, match="unknown"):
            accounts.authenticate(token)


def test_changing_the_password_ends_the_sessions(accounts: Accounts) -> None:
    ann = accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    session = accounts.login("ann", PASSWORD)
    with pytest.raises(LoginFailedError, match="current password is wrong"):
        accounts.change_password(ann.id, "not it at all", "new password here")
    accounts.change_password(ann.id, PASSWORD, "new password here")
    with pytest.raises(SessionInvalidError):
        accounts.authenticate(session.token)
    with pytest.raises(LoginFailedError):
        accounts.login("ann", PASSWORD)
    accounts.login("ann", "new password here")
    accounts.set_password(ann.id, "reset by the admin")
    accounts.login("ann", "reset by the admin")
    with pytest.raises(UnknownUserError):
        accounts.set_password(9999, "whatever it is")


def test_a_disabled_account_cannot_log_in_and_its_sessions_end(accounts: Accounts) -> None:
    ann = accounts.create_user("ann", PASSWORD, UserRole.DEALER)
    session = accounts.login("ann", PASSWORD)
    assert accounts.set_disabled(ann.id).disabled
    with pytest.raises(SessionInvalidError):
        accounts.authenticate(session.token)
    with pytest.raises(AccountDisabledError, match="disabled; ask an admin to enable it"):
        accounts.login("ann", PASSWORD)
    with pytest.raises(LoginFailedError):  # a wrong password still says only that
        accounts.login("ann", "wrong password")
    accounts.set_disabled(ann.id, False)
    accounts.login("ann", PASSWORD)


def test_weak_hashes_are_upgraded_at_login(engine: Engine, clock: Clock) -> None:
    weak = Accounts(engine, hasher=FAST, clock=clock)
    ann = weak.create_user("ann", PASSWORD, UserRole.DEALER)
    stronger = PasswordHasher(time_cost=2, memory_cost=16, parallelism=1)
    Accounts(engine, hasher=stronger, clock=clock).login("ann", PASSWORD)
    with engine.connect() as conn:
        stored = conn.execute(
            select(db.accounts.c.password_hash).where(db.accounts.c.id == ann.id)
        ).scalar_one()
    assert not stronger.check_needs_rehash(stored)
    weak.login("ann", PASSWORD)  # the new hash still verifies


def test_roles_follow_the_table_positions_and_the_admin_stands_apart(
    accounts: Accounts,
) -> None:
    assert [r.value for r in UserRole] == list(db.ROLES)
    assert UserRole.PIT_MANAGER.may_act_as(UserRole.DEALER)
    assert not UserRole.DEALER.may_act_as(UserRole.PIT_SUPERVISOR)
    assert not UserRole.DEALER.may_act_as(UserRole.PLAYER)
    assert UserRole.ADMIN.may_act_as(UserRole.ADMIN)
    assert not UserRole.ADMIN.may_act_as(UserRole.DEALER)
    assert not UserRole.SHIFT_MANAGER.may_act_as(UserRole.ADMIN)
    assert UserRole.SHIFT_MANAGER.table_role is Role.SHIFT_MANAGER
    assert UserRole.ADMIN.table_role is None
    dealer = accounts.create_user("dee", PASSWORD, UserRole.DEALER)
    dealer.require(UserRole.DEALER, "deal")
    with pytest.raises(
        PermissionDeniedError, match=r"a dealer may not void a round \(clause 6.2\)"
    ):
        dealer.require(UserRole.PIT_MANAGER, "void a round")
    promoted = accounts.set_role(dealer.id, UserRole.PIT_MANAGER)
    assert isinstance(promoted, User)
    assert promoted.role is UserRole.PIT_MANAGER
    promoted.require(UserRole.PIT_MANAGER, "void a round")
