"""The grid universe's own commands, as HTCondor's SetGridParams writes them: ARC's and the
batch systems' settings, and the EC2, GCE and Azure instance descriptions.

condorx runs only `condor` grid jobs (Condor-C); the others are built as HTCondor builds
them, so a queue holds the same ads whichever submits them, and the job router and the
schedd can say plainly why they cannot be run here.
"""

from __future__ import annotations

from condorx.language.attrs import Universe
from condorx.language.submit.commands import row
from condorx.language.submit.errors import SubmitError
from condorx.language.submit.universes import universe
from condorx.language.submit.values import Values

TYPE_CHECKING = False  # typing's, without importing typing (see condorx.record)
if TYPE_CHECKING:
    from typing import Any

# Grid types HTCondor's submit accepts (validate_gridtype).
TYPES = (
    "blah",
    "batch",
    "pbs",
    "sge",
    "lsf",
    "nqs",
    "naregi",
    "condor",
    "arc",
    "ec2",
    "gce",
    "azure",
)

# command -> attribute, each written as a string when given, whatever the grid type.
_STRINGS = {
    "arc_rte": "ArcRte",
    "arc_resources": "ArcResources",
    "arc_application": "ArcApplication",
    "arc_data_staging": "ArcDataStaging",
    "batch_extra_submit_args": "BatchExtraSubmitArgs",
    "batch_project": "BatchProject",
    "batch_queue": "BatchQueue",
    "ec2_security_groups": "EC2SecurityGroups",
    "ec2_security_ids": "EC2SecurityIDs",
    "ec2_instance_type": "EC2InstanceType",
    "ec2_vpc_subnet": "EC2VpcSubnet",
    "ec2_vpc_ip": "EC2VpcIp",
    "ec2_elastic_ip": "EC2ElasticIp",
    "ec2_availability_zone": "EC2AvailabilityZone",
    "ec2_spot_price": "EC2SpotPrice",
    "ec2_block_device_mapping": "EC2BlockDeviceMapping",
    "ec2_user_data": "EC2UserData",
    "ec2_iam_profile_arn": "EC2IamProfileArn",
    "gce_account": "GceAccount",
}
# command -> attribute, a file named relative to the job's initial directory.
_FILES = {
    "ec2_user_data_file": "EC2UserDataFile",
    "gce_auth_file": "GceAuthFile",
    "gce_metadata_file": "GceMetadataFile",
    "gce_json_file": "GceJsonFile",
    "azure_auth_file": "AzureAuthFile",
}
# grid type -> (command, attribute) its jobs must give.
_REQUIRED = {
    "ec2": [("ec2_ami_id", "EC2AmiID")],
    "gce": [("gce_image", "GceImage"), ("gce_machine_type", "GceMachineType")],
    "azure": [
        ("azure_image", "AzureImage"),
        ("azure_location", "AzureLocation"),
        ("azure_size", "AzureSize"),
        ("azure_admin_username", "AzureAdminUsername"),
        ("azure_admin_key", "AzureAdminKey"),
    ],
}
_MAGIC_ROLE = "FROM INSTANCE"  # USE_INSTANCE_ROLE_MAGIC_STRING: the instance's own role


def check_resource(v: Values, resource: str) -> str:
    """The grid type of a grid_resource, refused as HTCondor refuses it."""
    if resource.lower() == "ec2":
        raise SubmitError(f"{v.where('grid_resource')}: EC2 grid jobs require a service URL")
    kind = resource.split()[0].lower()
    if kind not in TYPES:
        raise SubmitError(
            f"{v.where('grid_resource')}: Invalid value '{resource.split()[0]}' for grid type."
            f" Must be one of: {', '.join(TYPES[:-1])}, or {TYPES[-1]}"
        )
    return kind


@row("universe", "grid_resource", *_STRINGS, *_FILES, "batch_runtime")
def _grid(v: Values) -> dict[str, Any]:
    if universe(v) != Universe.GRID:
        return {}
    resource = v.get("grid_resource")
    if not resource:
        raise SubmitError(
            f"{v.where('universe')}: grid_resource attribute not defined for grid universe job"
        )
    kind = check_resource(v, resource)
    out: dict[str, Any] = {"GridResource": resource}
    out |= {a: v.get(c) for c, a in _STRINGS.items() if v.given(c)}
    out |= {a: v.in_iwd(str(v.get(c))) for c, a in _FILES.items() if v.given(c)}
    if v.given("batch_runtime"):
        out["BatchRuntime"] = v.expr("batch_runtime")
    out |= _ec2(v, kind)
    out |= _gce(v)
    for command, attr in _REQUIRED.get(kind, []):
        if v.given(command):
            out[attr] = v.get(command)
        else:
            what = "an" if kind == "azure" else "a"
            raise SubmitError(
                f"{v.where('grid_resource')}: {kind.upper() if kind != 'azure' else 'Azure'}"
                f' jobs require {what} "{command}" parameter'
            )
    return out


def _ec2(v: Values, kind: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for commands, attr in (
        (("ec2_access_key_id", "aws_access_key_id_file"), "EC2AccessKeyId"),
        (("ec2_secret_access_key", "aws_secret_access_key_file"), "EC2SecretAccessKey"),
    ):
        value = next((v.get(c) for c in commands if v.given(c)), None)
        if value is None:
            if kind == "ec2":
                raise SubmitError(
                    f"{v.where('grid_resource')}: EC2 jobs require a '{commands[0]}' or"
                    f" '{commands[1]}' parameter"
                )
            continue
        if value.upper() == _MAGIC_ROLE:
            out |= {"EC2AccessKeyId": _MAGIC_ROLE, "EC2SecretAccessKey": _MAGIC_ROLE}
        else:
            out[attr] = v.in_iwd(value)
    pair = v.get("ec2_keypair") or v.get("ec2_keyp_air")
    if pair:
        out["EC2KeyPair"] = pair
    pair_file = v.get("ec2_keypair_file") or v.get("ec2_key_pair_file")
    if pair_file and not pair:
        out["EC2KeyPairFile"] = v.in_iwd(pair_file)
    if v.given("ec2_ebs_volumes"):
        out["EC2ElasticBlockStorageVolumes"] = _ebs_volumes(v)
    # HTCondor keeps a profile name only beside an ARN (its test is the wrong way round).
    if v.given("ec2_iam_profile_name") and v.given("ec2_iam_profile_arn"):
        out["EC2IamProfileName"] = v.get("ec2_iam_profile_name")
    out |= _params(v)
    out |= _tags(v, "ec2_tag_names", "EC2TagNames", "ec2_tag_", "EC2Tag", kind)
    out |= _tags(v, "cloud_label_names", "CloudLabelNames", "cloud_label_", "CloudLabel", kind)
    return out


def _ebs_volumes(v: Values) -> str:
    value = str(v.get("ec2_ebs_volumes"))
    if any(len(item.split(":")) != 2 for item in value.split(",")):
        raise SubmitError(
            f"{v.where('ec2_ebs_volumes')}: 'ec2_ebs_volumes' has incorrect format. The format"
            ' should be like "<instance_id>:<devicename>"'
        )
    if not v.given("ec2_availability_zone"):
        raise SubmitError(
            f"{v.where('ec2_ebs_volumes')}: 'ec2_ebs_volumes' requires 'ec2_availability_zone'"
        )
    return value


def _params(v: Values) -> dict[str, Any]:
    """`ec2_parameter_<name>` commands as EC2Param_<name>, listed in EC2ParamNames."""
    names = _split(v.get("ec2_parameter_names") or "")
    out: dict[str, Any] = {}
    for key in _prefixed(v, "ec2_parameter_"):
        name = key[len("ec2_parameter_") :]
        if name.lower() == "names":
            continue
        out[f"EC2Param_{name}"] = v.get(key.lower())
        if not any(n.replace(".", "_").lower() == name.lower() for n in names):
            names.append(name)
    if names:
        out["EC2ParamNames"] = ", ".join(names)
    return out


def _tags(
    v: Values, names_key: str, names_attr: str, prefix: str, attr_prefix: str, kind: str
) -> dict[str, Any]:
    """`<prefix><name>` commands as <attr_prefix><name>, listed in <names_attr>; an EC2
    instance is named for its executable unless it has a Name tag (HTCondor's
    handleAVPairs)."""
    names = _split(v.get(names_key) or "")
    for key in _prefixed(v, prefix) + _prefixed(v, attr_prefix.lower()):
        name = key[len(prefix) :] if key.lower().startswith(prefix) else key[len(attr_prefix) :]
        if not name.lower().startswith("names") and name.lower() not in map(str.lower, names):
            names.append(name)
    out: dict[str, Any] = {}
    for name in names:
        value = v.get((prefix + name).lower()) or v.get((attr_prefix + name).lower())
        if value is not None:
            out[attr_prefix + name] = value
    if kind == "ec2" and "name" not in map(str.lower, names):
        if v.bool("WantNameTag", True) and v.given("executable"):
            out[attr_prefix + "Name"] = v.get("executable")
    if names:
        out[names_attr] = ",".join(names)
    return out


def _prefixed(v: Values, prefix: str) -> list[str]:
    """The names set in the description that begin with `prefix`, in HTCondor's table
    order (sorted without case)."""
    return sorted(
        (n for n in v.names() if n.lower().startswith(prefix) and len(n) > len(prefix)),
        key=str.lower,
    )


def _split(text: str) -> list[str]:
    return [w for w in text.replace(",", " ").split() if w]


def _gce(v: Values) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if v.given("gce_metadata"):
        items = [i.strip() for i in str(v.get("gce_metadata")).split(",") if i.strip()]
        out["GceMetadata"] = ",".join(items)
    if v.given("gce_preemptible"):
        out["GcePreemptible"] = v.bool("gce_preemptible", False)
    return out
