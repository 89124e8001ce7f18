// The target of `texture_sink.wgsl`: an rgba8unorm storage texture.
@group(0) @binding(1) var dst: texture_storage_2d<rgba8unorm, write>;
