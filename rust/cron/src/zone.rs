//! The time zone a schedule is read in: an IANA name, or the machine's local zone.

use std::path::Path;

pub use chrono_tz::Tz;

use crate::error::{CronError, CronErrorKind};

/// The zone named `name` in the IANA database (`"America/Chicago"`, `"UTC"`), exactly as
/// spelled there.
pub fn parse_tz(name: &str) -> Result<Tz, CronError> {
    name.parse::<Tz>().map_err(|_| CronError {
        kind: CronErrorKind::UnknownTimeZone,
        field: None,
        text: name.to_owned(),
    })
}

/// The machine's local zone, as a schedd would read its wall clock: the `TZ` environment
/// variable when it names an IANA zone (a leading `:` is allowed, as POSIX does), else the
/// zone `/etc/localtime` links to (or Debian's `/etc/timezone`), else UTC. A POSIX rule
/// string such as `EST5EDT,M3.2.0,M11.1.0` names no zone here and is passed over.
pub fn local_tz() -> Tz {
    let var = std::env::var("TZ").ok();
    local_tz_from(
        var.as_deref(),
        Path::new("/etc/localtime"),
        Path::new("/etc/timezone"),
    )
}

/// [`local_tz`] with its inputs given, so it can be tested without touching the machine.
pub fn local_tz_from(tz_var: Option<&str>, localtime: &Path, timezone_file: &Path) -> Tz {
    let from_var = tz_var.and_then(|v| parse_tz(v.strip_prefix(':').unwrap_or(v).trim()).ok());
    from_var
        .or_else(|| zone_of_link(localtime))
        .or_else(|| {
            let text = std::fs::read_to_string(timezone_file).ok()?;
            parse_tz(text.trim()).ok()
        })
        .unwrap_or(Tz::UTC)
}

/// `/etc/localtime -> /usr/share/zoneinfo/America/Chicago` gives America/Chicago; the
/// `posix/` and `right/` subtrees name the same zones.
fn zone_of_link(link: &Path) -> Option<Tz> {
    let target = std::fs::read_link(link).ok()?;
    let target = target.to_str()?;
    let (_, name) = target.rsplit_once("zoneinfo/")?;
    let name = name
        .strip_prefix("posix/")
        .or_else(|| name.strip_prefix("right/"))
        .unwrap_or(name);
    parse_tz(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(parse_tz("America/Chicago").unwrap(), Tz::America__Chicago);
        assert_eq!(parse_tz("UTC").unwrap(), Tz::UTC);
        let err = parse_tz("Mars/Olympus_Mons").unwrap_err();
        assert_eq!(err.kind, CronErrorKind::UnknownTimeZone);
        assert_eq!(err.to_string(), "unknown time zone \"Mars/Olympus_Mons\"");
    }

    #[test]
    fn local_zone_sources_in_order() {
        let dir = std::env::temp_dir().join(format!("condorx-cron-zone-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let link = dir.join("localtime");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink("/usr/share/zoneinfo/posix/Europe/Berlin", &link).unwrap();
        let tzfile = dir.join("timezone");
        std::fs::write(&tzfile, "Asia/Tokyo\n").unwrap();
        let missing = dir.join("missing");

        let got = |var, link: &Path, file: &Path| local_tz_from(var, link, file);
        assert_eq!(
            got(Some(":America/Chicago"), &link, &tzfile),
            Tz::America__Chicago
        );
        assert_eq!(
            got(Some("EST5EDT,M3.2.0,M11.1.0"), &link, &tzfile),
            Tz::Europe__Berlin
        );
        assert_eq!(got(None, &link, &tzfile), Tz::Europe__Berlin);
        assert_eq!(got(None, &missing, &tzfile), Tz::Asia__Tokyo);
        assert_eq!(got(None, &missing, &missing), Tz::UTC);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
