//! Arbitrary text into the accountant's state readers (`--priorities` and
//! `--accountant`): an error must name a line of the input, never a panic; a
//! state that reads must write out and read back to the same records.
#![no_main]

use classad::negotiate::accounts::Accounts;
use classad::negotiate::Priorities;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() > 64 * 1024 {
        return;
    }
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let lines = text.lines().count().max(1) as u32;
    if let Err(e) = Priorities::parse(text, "fuzz") {
        assert!(e.line >= 1 && e.line <= lines, "{e}");
    }
    let groups = vec!["group_a".to_string(), "group_a.b".to_string()];
    match Accounts::from_userprio(text, "fuzz", 0, 86_400.0, groups.clone()) {
        Err(e) => assert!(e.line >= 1 && e.line <= lines, "{e}"),
        Ok(mut a) => {
            a.update_priorities(a.last_update_time + 600);
            let written = a.to_userprio(|_| 1000.0);
            let back = Accounts::from_userprio(&written, "written", 0, 86_400.0, groups)
                .unwrap_or_else(|e| panic!("{e}\n{written}"));
            assert_eq!(back.to_userprio(|_| 1000.0), written);
        }
    }
});
