use meanscape::algo::{self, Ctx, Init, Problem, Request};
use meanscape::data::{self, DataSource, LoadOptions};
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let a: Vec<String> = std::env::args().skip(1).collect();
    let src = DataSource::parse(&a[0])?;
    let mut opts = LoadOptions::default();
    let ds = data::load(&src, &opts)?;
    let _ = &mut opts;
    let mut problem = Problem::from_matrix(ds.x.clone());
    if a.get(3).map(|s| s == "f32").unwrap_or(false) {
        problem.use_f32();
    }
    let k: usize = a[1].parse()?;
    let given: Vec<(String, f64)> = a[2]
        .split(',')
        .filter(|s| !s.is_empty())
        .map(|kv| {
            let mut it = kv.split('=');
            (
                it.next().unwrap().to_string(),
                it.next().unwrap().parse().unwrap(),
            )
        })
        .collect();
    let al = algo::find("power")?;
    let req = Request {
        k,
        seed: 0,
        restarts: 1,
        init: Init::KmeansPP,
        given: &given,
        options: &[],
        centres: None,
    };
    let cfg = algo::configure(al.as_ref(), &problem, req, "X")?;
    let (tx, rx) = std::sync::mpsc::channel();
    let ctx = Ctx::new().with_events(tx, false);
    let h = std::thread::spawn(move || {
        for ev in rx {
            if let algo::Event::Iteration(p) = ev {
                println!("{} {:?} {} {}", p.iter, p.s, p.objective, p.changed);
            }
        }
    });
    let r = algo::run(al.as_ref(), &problem, &cfg, &ctx)?;
    drop(ctx);
    drop(cfg);
    eprintln!("iters {} elapsed {:?}", r.best.iterations, r.elapsed);
    let _ = h;
    Ok(())
}
