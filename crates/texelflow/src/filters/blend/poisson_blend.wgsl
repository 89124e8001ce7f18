// Poisson blend (GPUImage's GPUImagePoissonBlendFilter), shared part of three kernels, each
// in its own file as their bindings differ: `poisson_init` once, `poisson_step` once per
// iteration (ping-pong between two f32 buffers), `poisson_pack` once. CPU twin:
// `PoissonBlend::run_cpu` in poisson_blend.rs, the same f32 operations in the same order.

const NONE: u32 = 0xffffffffu;

// The four neighbours of pixel (x, y) with replicated borders (GPUImage samples with
// clamp-to-edge), as indices: left, right, up, down.
fn neighbours(x: u32, y: u32) -> vec4<u32> {
    let w = params.width;
    let row = y * w;
    let l = row + select(x - 1u, 0u, x == 0u);
    let r = row + min(x + 1u, w - 1u);
    let u = select(y - 1u, 0u, y == 0u) * w + x;
    let d = min(y + 1u, params.height - 1u) * w + x;
    return vec4<u32>(l, r, u, d);
}

@group(0) @binding(4) var<uniform> params: PoissonParams;
