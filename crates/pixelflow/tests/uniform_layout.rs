//! Every `#[repr(C)]` uniform declared in the registry has the size its WGSL struct has
//! under WGSL's uniform layout rules (parsed with naga), and a multiple of 16 bytes (so
//! per-pixel parameter blocks can be concatenated in fused kernels). Every kernel also
//! compiles in naga's front end, so a WGSL typo fails here with a line number.

use pixelflow::registry;

fn module(src: &str) -> naga::Module {
    let full = format!("{}\n{}\n{}", pixelflow::runtime::COMMON_WGSL, pixelflow::runtime::CONV_WGSL, src);
    naga::front::wgsl::parse_str(&full).unwrap_or_else(|e| panic!("WGSL does not parse:\n{}", e.emit_to_string(&full)))
}

#[test]
fn uniform_structs_match_wgsl_layout() {
    let mut checked = 0;
    for def in registry::all() {
        for u in def.uniforms {
            let m = module(u.wgsl);
            let ty = m.types.iter().find(|(_, t)| t.name.as_deref() == Some(u.wgsl_struct)).unwrap_or_else(|| panic!("{}: no WGSL struct {}", def.name, u.wgsl_struct));
            let naga::TypeInner::Struct { span, .. } = ty.1.inner else { panic!("{} is not a struct", u.wgsl_struct) };
            assert_eq!(span as usize, u.rust_size, "{}: WGSL {} is {span} bytes, Rust mirror is {}", def.name, u.wgsl_struct, u.rust_size);
            assert_eq!(u.rust_size % 16, 0, "{}: {} size not a multiple of 16", def.name, u.wgsl_struct);
            checked += 1;
        }
    }
    assert!(checked >= 10, "only {checked} uniforms checked");
}

#[test]
fn a_layout_mismatch_is_detected() {
    // The check above must be able to fail: a struct with a vec3 member is 16, not 12, bytes.
    let m = module("struct P { a: vec3<f32> }\n@group(0) @binding(0) var<uniform> p: P;");
    let ty = m.types.iter().find(|(_, t)| t.name.as_deref() == Some("P")).unwrap();
    let naga::TypeInner::Struct { span, .. } = ty.1.inner else { panic!() };
    assert_ne!(span as usize, std::mem::size_of::<[f32; 3]>());
}
