"""X.509 certificates for tests of SSL authentication, made with `cryptography`: a CA,
host certificates it signs (for the loopback addresses and this host's names), and user
certificates with the subject a test names."""

from __future__ import annotations

import datetime
import ipaddress
import socket
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

_NAMES = {
    "C": NameOID.COUNTRY_NAME,
    "ST": NameOID.STATE_OR_PROVINCE_NAME,
    "L": NameOID.LOCALITY_NAME,
    "O": NameOID.ORGANIZATION_NAME,
    "OU": NameOID.ORGANIZATIONAL_UNIT_NAME,
    "CN": NameOID.COMMON_NAME,
}


def name(text: str) -> x509.Name:
    """`/C=US/O=Example/CN=Alice` as an X.509 name (in that order)."""
    parts = [p.split("=", 1) for p in text.strip("/").split("/")]
    return x509.Name([x509.NameAttribute(_NAMES[k], v) for k, v in parts])


@dataclass(frozen=True)
class Pair:
    cert: Path
    key: Path


class Authority:
    """A CA that signs what a test needs, its files under `root`."""

    def __init__(self, root: Path, subject: str = "/O=condorx tests/CN=Test CA") -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.name = name(subject)
        builder = _builder(self.name, self.name, self.key.public_key(), days=2)
        builder = builder.add_extension(x509.BasicConstraints(ca=True, path_length=None), True)
        self.cert = builder.sign(self.key, hashes.SHA256())
        self.file = root / "ca.crt"
        self.file.write_bytes(self.cert.public_bytes(serialization.Encoding.PEM))

    def issue(self, file: str, subject: str, hosts: bool = False, days: int = 1) -> Pair:
        """A certificate for `subject` (with hosts, for this host's names and addresses)."""
        key = ec.generate_private_key(ec.SECP256R1())
        builder = _builder(name(subject), self.name, key.public_key(), days)
        builder = builder.add_extension(x509.BasicConstraints(ca=False, path_length=None), True)
        if hosts:
            alt: list[x509.GeneralName] = [
                x509.DNSName("localhost"),
                x509.DNSName(socket.gethostname()),
                x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
            ]
            builder = builder.add_extension(x509.SubjectAlternativeName(alt), False)
        cert = builder.sign(self.key, hashes.SHA256())
        pair = Pair(self.root / f"{file}.crt", self.root / f"{file}.key")
        pair.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        pair.key.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )
        pair.key.chmod(0o600)
        return pair


def _builder(
    subject: x509.Name, issuer: x509.Name, public: ec.EllipticCurvePublicKey, days: int
) -> x509.CertificateBuilder:
    now = datetime.datetime.now(datetime.UTC)
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(issuer)
        .public_key(public)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
    )
