//! Partitionable slots: a dynamic slot of the requested cpus, memory and disk (and custom
//! resources: the GPUs and others its `MachineResources` lists) is carved out of a
//! partitionable slot, which shrinks by as much and stays on offer while it has resources
//! left.

use std::sync::Arc;

use condorx_classad::{ClassAd, Expr, Name, Value};

use crate::pair::PairEval;

/// Resources a job asks for, as its Request* attributes evaluate against the slot.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Request {
    pub cpus: i64,
    pub memory: i64,
    pub disk: i64,
    /// Each custom resource the slot has (its name as the slot spells it), and how many.
    pub custom: Vec<(String, i64)>,
}

/// Whether `slot` is partitionable (`PartitionableSlot = true`).
pub fn is_partitionable(slot: &ClassAd) -> bool {
    matches!(
        slot.lookup("PartitionableSlot"),
        Some(Expr::Lit(Value::Bool(true)))
    )
}

fn int_of(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Real(r) if r.is_finite() => Some(r.ceil() as i64),
        Value::Bool(b) => Some(i64::from(*b)),
        _ => None,
    }
}

/// The job's request, evaluated with the slot as TARGET (RequestCpus defaults to 1, the
/// others to 0 when the job does not say). A slot with a consumption policy (HTCondor's
/// CONSUMPTION_POLICY: a Consumption<resource> for each resource it has) says instead
/// what a match takes of each, evaluated with the job as TARGET (by default its request,
/// quantized: `quantize(target.RequestMemory, {128})`).
pub fn request_of(pair: &mut PairEval, job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> Request {
    if let Some(request) = consumption_of(pair, job, slot) {
        return request;
    }
    let mut get = |name: &str, default: i64| {
        int_of(&pair.attr(&Name::new(name), job, slot))
            .unwrap_or(default)
            .max(0)
    };
    let custom = custom_resources(slot)
        .map(|name| {
            let want = get(&format!("Request{name}"), 0);
            (name.to_owned(), want)
        })
        .collect();
    Request {
        cpus: get("RequestCpus", 1),
        memory: get("RequestMemory", 0),
        disk: get("RequestDisk", 0),
        custom,
    }
}

/// What a match takes under the slot's consumption policy, or None when it has none
/// (cp_supports_policy: Cpus, Memory, Disk and each custom resource need their
/// Consumption<name>). A consumption that is not a number above -1 takes all there is,
/// so that the job does not fit (HTCondor flags it and refuses the match).
fn consumption_of(pair: &mut PairEval, job: &Arc<ClassAd>, slot: &Arc<ClassAd>) -> Option<Request> {
    let names: Vec<String> = ["Cpus", "Memory", "Disk"]
        .iter()
        .map(|s| (*s).to_string())
        .chain(custom_resources(slot).map(str::to_owned))
        .collect();
    let exprs: Vec<Expr> = names
        .iter()
        .map(|n| slot.lookup(&format!("Consumption{n}")).cloned())
        .collect::<Option<Vec<Expr>>>()?;
    let mut took = names.iter().zip(exprs).map(|(name, expr)| {
        let amount = match int_of(&pair.value(&expr, slot, job)) {
            Some(v) if v >= 0 => v,
            _ => resource(slot, name) + 1,
        };
        (name.clone(), amount)
    });
    let mut next = || took.next().map_or(0, |(_, v)| v);
    let (cpus, memory, disk) = (next(), next(), next());
    Some(Request {
        cpus,
        memory,
        disk,
        custom: took.collect(),
    })
}

/// The custom resources a slot's `MachineResources` lists (all but Cpus, Memory, Disk
/// and Swap).
fn custom_resources(slot: &ClassAd) -> impl Iterator<Item = &str> {
    let listed = match slot.lookup("MachineResources") {
        Some(Expr::Lit(Value::Str(s))) => s.as_ref(),
        _ => "",
    };
    listed
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|n| !n.is_empty())
        .filter(|n| {
            !["cpus", "memory", "disk", "swap"]
                .iter()
                .any(|s| n.eq_ignore_ascii_case(s))
        })
}

fn resource(slot: &ClassAd, name: &str) -> i64 {
    match slot.lookup(name) {
        Some(Expr::Lit(v)) => int_of(v).unwrap_or(0),
        _ => 0,
    }
}

/// Carve `req` out of the partitionable slot `pslot`: the dynamic slot's ad and the
/// partitionable slot's ad after it; None when what is left cannot hold the request.
/// `serial` numbers the dynamic slots of this partitionable slot (`slot1_1@host`, ...).
pub fn carve(pslot: &ClassAd, req: &Request, serial: usize) -> Option<(ClassAd, ClassAd)> {
    let (cpus, memory, disk) = (
        resource(pslot, "Cpus"),
        resource(pslot, "Memory"),
        resource(pslot, "Disk"),
    );
    if req.cpus > cpus || req.memory > memory || req.disk > disk {
        return None;
    }
    if req
        .custom
        .iter()
        .any(|(name, want)| *want > resource(pslot, name))
    {
        return None;
    }
    let mut left = pslot.clone();
    left.insert_str("Cpus", Expr::int(cpus - req.cpus));
    left.insert_str("Memory", Expr::int(memory - req.memory));
    left.insert_str("Disk", Expr::int(disk - req.disk));
    let mut dynamic = pslot.clone();
    dynamic.insert_str("Cpus", Expr::int(req.cpus));
    dynamic.insert_str("Memory", Expr::int(req.memory));
    dynamic.insert_str("Disk", Expr::int(req.disk));
    for (name, want) in &req.custom {
        left.insert_str(name, Expr::int(resource(pslot, name) - want));
        dynamic.insert_str(name, Expr::int(*want));
    }
    dynamic.insert_str("PartitionableSlot", Expr::Lit(Value::Bool(false)));
    dynamic.insert_str("DynamicSlot", Expr::Lit(Value::Bool(true)));
    dynamic.insert_str("SlotType", Expr::string("Dynamic"));
    if let Some(Expr::Lit(Value::Str(name))) = pslot.lookup("Name") {
        dynamic.insert_str("Name", Expr::string(&dynamic_name(name, serial)));
    }
    Some((dynamic, left))
}

/// `slot1@host` -> `slot1_3@host`, as HTCondor names dynamic slots.
fn dynamic_name(pslot_name: &str, serial: usize) -> String {
    match pslot_name.split_once('@') {
        Some((slot, host)) => format!("{slot}_{serial}@{host}"),
        None => format!("{pslot_name}_{serial}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use condorx_classad::parse_ad;

    #[test]
    fn carving_shrinks_the_partitionable_slot() {
        let p = parse_ad(r#"[ Name = "slot1@host"; PartitionableSlot = true; Cpus = 8; Memory = 16384; Disk = 100000 ]"#).unwrap();
        assert!(is_partitionable(&p));
        let req = Request {
            cpus: 2,
            memory: 4096,
            disk: 1000,
            custom: vec![],
        };
        let (d, left) = carve(&p, &req, 1).unwrap();
        assert_eq!(
            d.lookup("Name").map(condorx_classad::unparse).unwrap(),
            "\"slot1_1@host\""
        );
        assert_eq!(condorx_classad::unparse(d.lookup("Cpus").unwrap()), "2");
        assert_eq!(
            condorx_classad::unparse(left.lookup("Memory").unwrap()),
            "12288"
        );
        assert!(!is_partitionable(&d));
        assert!(
            carve(
                &left,
                &Request {
                    cpus: 7,
                    memory: 1,
                    disk: 1,
                    custom: vec![],
                },
                2
            )
            .is_none(),
            "6 cpus left"
        );
    }

    #[test]
    fn custom_resources_are_carved_as_the_slot_lists_them() {
        let p = parse_ad(
            r#"[ Name = "slot1@host"; PartitionableSlot = true; Cpus = 8; Memory = 16384;
                 Disk = 100000; GPUs = 2; MachineResources = "Cpus Memory Disk Swap GPUs" ]"#,
        )
        .unwrap();
        let names: Vec<&str> = custom_resources(&p).collect();
        assert_eq!(names, ["GPUs"]);
        let one_gpu = Request {
            cpus: 1,
            memory: 1,
            disk: 1,
            custom: vec![("GPUs".into(), 1)],
        };
        let (d, left) = carve(&p, &one_gpu, 1).unwrap();
        assert_eq!(condorx_classad::unparse(d.lookup("GPUs").unwrap()), "1");
        let (_, left) = carve(&left, &one_gpu, 2).unwrap();
        assert_eq!(condorx_classad::unparse(left.lookup("GPUs").unwrap()), "0");
        assert!(carve(&left, &one_gpu, 3).is_none(), "no GPU left");
        let no_gpu = Request {
            custom: vec![("GPUs".into(), 0)],
            ..one_gpu
        };
        assert!(
            carve(&left, &no_gpu, 3).is_some(),
            "cpus left for a job without GPUs"
        );
    }
}
