//! Learnings per second for the codec and for loading a directory: parse and
//! write 10,000 learnings; load a 10,000-file learnings dir (target < 0.5 s).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use learnsync::learning::Learning;
use learnsync::store::LearningsDir;
use learnsync::timestamp::Timestamp;
use std::hint::black_box;

fn sample(i: usize) -> Learning {
    let mut l = Learning::new(
        format!(
            "learning-{:032x}-{}",
            i * 7919,
            1_700_000_000_000u64 + i as u64
        ),
        format!("agent{}", i % 10),
        format!("Use --force-with-lease instead of --force ({i})"),
        Timestamp::from_unix(1_786_795_200 + i as i64),
    );
    l.keywords = vec!["git".into(), "force-push".into(), format!("k{}", i % 50)];
    l.original_command = Some(format!("git push -f origin feature/{i}"));
    l.error_context = Some(
        "remote: rejected\n ! [remote rejected] main -> main (protected branch hook declined)"
            .into(),
    );
    l.correction = Some("git push --force-with-lease".into());
    l.kind = Some("correction".into());
    l.body = "`git push -f` is rejected on protected branches. Use\n`git push --force-with-lease` instead.\n".into();
    l
}

fn codec(c: &mut Criterion) {
    let learnings: Vec<Learning> = (0..10_000).map(sample).collect();
    let texts: Vec<String> = learnings.iter().map(Learning::to_markdown).collect();
    let mut group = c.benchmark_group("codec");
    group.throughput(Throughput::Elements(10_000));
    group.sample_size(10);
    group.bench_function("write_10k", |b| {
        b.iter(|| {
            for l in &learnings {
                black_box(l.to_markdown());
            }
        })
    });
    group.bench_function("parse_10k", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(Learning::parse(t.as_bytes()).ok());
            }
        })
    });
    group.finish();

    let tmp = tempfile::tempdir().expect("temp dir");
    for (l, t) in learnings.iter().zip(&texts) {
        let dir = tmp.path().join(&l.agent_id);
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(dir.join(format!("{}.md", l.id)), t).expect("write");
    }
    let dir = LearningsDir::new(tmp.path());
    let mut group = c.benchmark_group("load");
    group.throughput(Throughput::Elements(10_000));
    group.sample_size(10);
    group.bench_function("dir_10k", |b| {
        b.iter(|| {
            let scan = dir.scan();
            assert_eq!(scan.learnings.len(), 10_000);
            black_box(scan)
        })
    });
    group.finish();
}

criterion_group!(benches, codec);
criterion_main!(benches);
