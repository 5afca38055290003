"""Container jobs: `container_image` (any universe, or the container universe) and
`docker_image` (the docker universe), as HTCondor's submit describes them."""

from __future__ import annotations

from condorx.language.submit import transfer
from condorx.language.submit.commands import row
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.universes import universe_name
from condorx.language.submit.values import Values, unquoted

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any


def image_source(image: str, transferred: bool) -> str:
    """Where a container image comes from: docker, oras, a plugin's scheme (osdf), local
    (read in place), or cedar (a file that HTCondor's own file transfer brings)."""
    if "://" in image:
        return image.split("://", 1)[0].lower()
    return "cedar" if transferred else "local"


def kind(v: Values) -> str | None:
    """ "docker" for a docker-universe job, "container" for one with a container image (a
    docker_image outside the docker universe names one too, as HTCondor takes it)."""
    name = universe_name(v)
    if name == "docker":
        return "docker"
    if name == "container" or (
        name in ("vanilla", "5", "local", "12")
        and (v.given("container_image") or v.given("docker_image"))
    ):
        return "container"
    return None


@row("container_image", "docker_image", "universe", "container_service_names", "transfer_container")
def _container(v: Values) -> dict[str, Any]:
    which = kind(v)
    if which == "docker":
        image = v.get("docker_image")
        if image is None:
            raise SubmitError(f"{v.where('universe')}: docker jobs require a docker_image")
        return {"WantDocker": True, "DockerImage": unquoted(image)}
    if which is None:
        return {}
    image = v.get("container_image")
    docker = v.get("docker_image")
    if image is not None and docker is not None:
        raise SubmitError(
            f"{v.where('docker_image')}: cannot declare both docker_image and container_image"
        )
    if docker is not None:  # the container universe's image, named as docker's
        return {"WantContainer": True, "WantDockerImage": True, "DockerImage": docker}
    if image is None:
        raise SubmitError(f"{v.where('universe')}: container jobs require a container_image")
    source = image_source(image, transfer.container_transfer(v) is not None)
    out: dict[str, Any] = {"WantContainer": True, "ContainerImageSource": source}
    # The kind of image is read without its quotes; everything else takes it as written.
    bare = unquoted(image)
    if bare.startswith("docker://"):
        out["WantDockerImage"] = True
    elif bare.endswith(".sif"):
        out["WantSIF"] = True
    else:  # an unpacked image directory
        out["WantSandboxImage"] = True
    # An image fetched by file transfer is known in the sandbox by its file name.
    out["ContainerImage"] = (
        image if source in ("docker", "oras", "local") else image.rstrip("/").rsplit("/", 1)[-1]
    )
    return out | _service_ports(v)


def _service_ports(v: Values) -> dict[str, Any]:
    """`<name>_container_port` for each name of container_service_names."""
    out: dict[str, Any] = {}
    names = v.get("container_service_names")
    if names:
        out["ContainerServiceNames"] = names
    for name in (names or "").replace(",", " ").split():
        port = v.literal_or_expr(f"{name.lower()}_container_port")
        if port is None:
            raise SubmitError(
                f"{v.where('container_service_names')}: container service {name!r}"
                f" needs {name}_container_port"
            )
        out[f"{name}_ContainerPort"] = port
    return out


def requirement_clauses(v: Values) -> list[str]:
    """The clauses that stand in for the OpSys clause of a container job."""
    which = kind(v)
    if which == "docker":
        return ["TARGET.HasDocker"]
    if which is None:
        return []
    # Taken as written: quotes are part of the name, as HTCondor takes it.
    image = v.get("container_image") or ""
    if image.startswith("docker:") or v.given("docker_image"):
        return ["TARGET.HasContainer", "TARGET.HasDockerURL"]
    if image.endswith(".sif"):
        return ["TARGET.HasContainer", "TARGET.HasSIF"]
    return ["TARGET.HasContainer", "TARGET.HasSandboxImage"]
