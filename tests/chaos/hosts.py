"""Hosts on one machine, for a deployment test: each a Linux network namespace with an
address of its own on a bridge of this namespace (a virtual switch), joined to it by a
virtual Ethernet link (veth) that `cut` takes down and `restore` brings back. This
process is the host at .1 of the subnet; nothing crosses between hosts on loopback.

Needs root and iproute2 (`ip netns`), as CI's machine has; `Network` says so if not."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


class HostsUnavailable(RuntimeError):
    """Namespaces cannot be made here; the message says what is missing."""


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=30)
    if done.returncode != 0:
        raise HostsUnavailable(f"ip {' '.join(args)}: {done.stderr.strip()}")


@dataclass
class Host:
    name: str
    namespace: str
    address: str
    link: str  # this namespace's end of the host's veth pair

    def popen(
        self, command: Sequence[str], *, env: dict[str, str], log: Path, cwd: Path | None = None
    ) -> subprocess.Popen[bytes]:
        """`command` started in this host's namespace (`ip netns exec` becomes it), its
        output to `log`, in a session of its own."""
        with log.open("ab") as output:  # the child keeps its own descriptor
            return subprocess.Popen(
                ["ip", "netns", "exec", self.namespace, *command],
                cwd=cwd,
                env=env,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def run(self, command: Sequence[str]) -> str:
        """`command` run to its end in this host's namespace; what it printed."""
        done = subprocess.run(
            ["ip", "netns", "exec", self.namespace, *command],
            capture_output=True,
            text=True,
            timeout=120,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{self.name}: {' '.join(command)}: {done.stderr.strip()}")
        return done.stdout


class Network:
    """A bridge at 10.<n>.<m>.1/24 here and a host per `add`, at .2, .3, ..."""

    def __init__(self) -> None:
        if os.geteuid() != 0 or shutil.which("ip") is None:
            raise HostsUnavailable("hosts need root and iproute2's `ip` (apt install iproute2)")
        tag = uuid.uuid4().hex[:6]
        self.tag = tag
        self.bridge = f"svbr{tag}"
        octets = bytes.fromhex(tag)
        self.prefix = f"10.{100 + octets[0] % 100}.{octets[1]}"
        self.address = f"{self.prefix}.1"
        self.hosts: dict[str, Host] = {}
        _ip("link", "add", self.bridge, "type", "bridge")
        _ip("addr", "add", f"{self.address}/24", "dev", self.bridge)
        _ip("link", "set", self.bridge, "up")

    @property
    def subnet(self) -> str:
        return f"{self.prefix}.0/24"

    def add(self, name: str) -> Host:
        number = len(self.hosts) + 2
        host = Host(
            name=name,
            namespace=f"sv{self.tag}-{name}",
            address=f"{self.prefix}.{number}",
            link=f"sv{self.tag}{number}",
        )
        _ip("netns", "add", host.namespace)
        self.hosts[name] = host
        _ip(
            "link",
            "add",
            host.link,
            "type",
            "veth",
            "peer",
            "name",
            "eth0",
            "netns",
            host.namespace,
        )
        _ip("link", "set", host.link, "master", self.bridge, "up")
        inside = ("netns", "exec", host.namespace, "ip")
        _ip(*inside, "addr", "add", f"{host.address}/24", "dev", "eth0")
        _ip(*inside, "link", "set", "eth0", "up")
        _ip(*inside, "link", "set", "lo", "up")
        return host

    def cut(self, name: str) -> None:
        """The host's link down: what it sends and what is sent to it is lost, as when a
        cable is pulled; its connections stay open, waiting."""
        _ip("link", "set", self.hosts[name].link, "down")

    def restore(self, name: str) -> None:
        _ip("link", "set", self.hosts[name].link, "up")

    def close(self) -> None:
        for host in self.hosts.values():
            subprocess.run(["ip", "netns", "del", host.namespace], capture_output=True)
        subprocess.run(["ip", "link", "del", self.bridge], capture_output=True)
