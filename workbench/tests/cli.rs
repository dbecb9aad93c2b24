//! Every benchmark's command line (`scorebench score <key>`, the `cli` feature) is consistent
//! with the rest of its adapter.
#![cfg(feature = "cli")]

use workbench::cli::Kind;
use workbench::registry;

#[test]
fn arguments_name_only_arguments_of_their_command() {
    for b in registry::all() {
        let args = b.command().args;
        let names: Vec<&str> = args.iter().map(|a| a.name).collect();
        for arg in args {
            let mut seen = names.clone();
            seen.retain(|n| *n == arg.name);
            assert_eq!(seen.len(), 1, "{}: `{}` twice", b.key(), arg.name);
            for other in arg
                .requires
                .iter()
                .chain(arg.conflicts)
                .chain(arg.required_unless_all)
            {
                assert!(
                    names.contains(other),
                    "{}: `{}` names `{other}`, which it does not have",
                    b.key(),
                    arg.name
                );
            }
        }
    }
}

#[test]
fn the_variant_choice_is_the_benchmarks_variants() {
    for b in registry::all() {
        let variants: Vec<&str> = b.variants().iter().map(|v| v.report_name).collect();
        let choice = b.command().args.iter().find(|a| a.name == "variant");
        match choice.map(|a| &a.kind) {
            Some(Kind::Choice { values, default }) => {
                let names: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
                assert_eq!(names, variants, "{}", b.key());
                assert_eq!(*default, variants[0], "{}", b.key());
            }
            Some(other) => panic!("{}: --variant is {other:?}", b.key()),
            None => assert_eq!(variants, ["official"], "{}: no --variant", b.key()),
        }
    }
}
