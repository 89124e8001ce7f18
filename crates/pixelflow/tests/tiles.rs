//! Images in tiles with halos (`Pipeline::run_tiled`): for every filter in the registry, tiny
//! tiles give the untiled result bit for bit, or the filter is refused with a reason (a change
//! of size, a whole-image read, position dependence, data). Plus chains, whose halos add up.

mod common;

use common::*;
use pixelflow::params::ParamKind;
use pixelflow::registry;
use pixelflow::{Image, PixelFormat, Pipeline};

fn pipe(spec: &str) -> pixelflow::Result<Pipeline> {
    Pipeline::parse(spec, &mut |p| Image::open(p))
}

/// A spec running `def` with defaults, a second image (of the input's size) where it takes one;
/// `None` for filters that need a file of their own.
fn spec_for(def: &registry::FilterDef, with: &str) -> Option<String> {
    let mut args = Vec::new();
    for p in def.params {
        match p.kind {
            ParamKind::Image => args.push(format!("{}={with}", p.name)),
            ParamKind::Path { required: true, .. } => return None,
            _ => {}
        }
    }
    Some(if args.is_empty() { def.name.to_string() } else { format!("{}({})", def.name, args.join(", ")) })
}

#[test]
fn every_filter_tiles_bit_identically_or_says_why_not() {
    let dir = std::env::temp_dir().join(format!("pixelflow-tiles-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (w, h) = (67, 43);
    let with = dir.join("with.png");
    random_image(w, h, PixelFormat::Rgba8, 2).save(&with).unwrap();
    let input = random_image(w, h, PixelFormat::Rgba8, 1);
    let b = gpu_backend();
    let (mut tiled, mut refused, mut failures) = (Vec::new(), Vec::new(), Vec::new());
    for def in registry::all() {
        let Some(spec) = spec_for(def, with.to_str().unwrap()) else { continue };
        let Ok(p) = pipe(&spec) else { continue };
        let Ok(whole) = p.run(&b, &input) else { continue };
        match p.run_tiled(&b, &input, 16, 3) {
            Ok(t) => match whole.as_image() {
                Some(whole) if whole.as_u8() == t.as_u8() && whole.desc() == t.desc() => tiled.push(def.name),
                _ => failures.push(format!("{spec}: tiles differ from the whole image")),
            },
            Err(e) if e.to_string().contains("cannot run in tiles") => refused.push(format!("{}: {e}", def.name)),
            Err(e) => failures.push(format!("{spec}: {e}")),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!("{} filters tile, {} refused:\n{}", tiled.len(), refused.len(), refused.join("\n"));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // the per-pixel filters, blends, blurs, stencils and morphology at least
    for name in ["brightness", "alpha_blend", "gaussian_blur", "box_blur", "sobel_edge_detection", "dilation", "median", "bilateral", "unsharp_mask", "harris_corner_detection"] {
        assert!(tiled.contains(&name), "{name} should tile");
    }
    assert!(tiled.len() > 60, "only {} filters tile", tiled.len());
}

#[test]
fn chains_add_their_halos_and_any_tile_size_works() {
    let input = random_image(97, 61, PixelFormat::Rgba8, 9);
    let b = gpu_backend();
    let p = pipe("gaussian_blur(sigma=3) | sobel_edge_detection | dilation(radius=2) | contrast(1.3)").unwrap();
    let (halo, _) = p.tile_halo(&input).unwrap();
    assert!(halo >= 9 + 1 + 2, "halo {halo}");
    let whole = p.run(&b, &input).unwrap().into_image().unwrap();
    for tile in [1, 7, 32, 96, 500] {
        assert_eq!(p.run_tiled(&b, &input, tile, 4).unwrap().as_u8(), whole.as_u8(), "tile {tile}");
    }
    // 16-bit and grey images tile too
    let wide = random_image(40, 30, PixelFormat::Rgba16, 4);
    let p16 = pipe("gaussian_blur(sigma=2) | brightness(0.1)").unwrap();
    assert_eq!(p16.run_tiled(&b, &wide, 9, 2).unwrap(), p16.run(&b, &wide).unwrap().into_image().unwrap());
    let grey = random_image(40, 30, PixelFormat::Gray8, 5);
    let pg = pipe("box_blur(radius=3) | erosion(radius=1)").unwrap();
    assert_eq!(pg.run_tiled(&b, &grey, 11, 2).unwrap(), pg.run(&b, &grey).unwrap().into_image().unwrap());
}

#[test]
fn untileable_pipelines_say_why() {
    let input = random_image(30, 20, PixelFormat::Rgba8, 3);
    let b = gpu_backend();
    for (spec, why) in [("resize(scale=0.5)", "size"), ("reduce", "data"), ("vignette", "where a pixel is"), ("histogram_equalization", "whole image"), ("low_pass", "state")] {
        let e = pipe(spec).unwrap().run_tiled(&b, &input, 8, 2).expect_err(spec).to_string();
        assert!(e.contains("cannot run in tiles") && e.contains(why), "{spec}: {e}");
    }
}

/// `run_with` tiles by itself where one buffer would exceed the GPU's binding limit, and says so.
#[test]
fn images_beyond_the_binding_limit_run_in_tiles_by_themselves() {
    // a GPU whose bindings hold 64 KiB: a 200x150 RGBA8 image (120 KB) no longer fits one
    let gpu = pixelflow::Gpu::new_with_binding_limit(&pixelflow::GpuOptions { backend: Some("vulkan".into()), adapter: None }, 64 * 1024).unwrap();
    let small = pixelflow::Backend::Gpu(gpu);
    let input = random_image(200, 150, PixelFormat::Rgba8, 8);
    let p = pipe("gaussian_blur(sigma=2) | sobel_edge_detection").unwrap();
    let r = p.run_with(&small, &input, &pixelflow::RunOptions::default()).unwrap();
    assert!(r.notes.iter().any(|n| n.contains("tiles")), "{:?}", r.notes);
    let whole = p.run(&gpu_backend(), &input).unwrap();
    assert_eq!(r.get("output"), Some(&whole));
    // one that cannot tile keeps the clear limit error
    let e = pipe("resize(scale=0.5)").unwrap().run(&small, &input).unwrap_err().to_string();
    assert!(e.contains("binding"), "{e}");
}
