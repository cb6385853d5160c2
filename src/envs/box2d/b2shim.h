// SPDX-License-Identifier: MIT
// A thin C interface over Box2D 2.3 (C++, pybox2d's sources built by scripts/build-box2d),
// implemented in b2shim.cpp: just what LunarLander and BipedalWalker use — a world, static/dynamic
// bodies with polygon, box and edge fixtures, revolute joints with motors and limits,
// forces/impulses, a contact callback that reports begin/end by body tag, a filtered closest-hit
// ray cast, and shape read-back for drawing. Each call does what pybox2d does for the Python call
// Gymnasium makes (float32 conversions, defaults), so that a world steps as Gymnasium's does, bit
// for bit. Not a general binding. Objects belong to one thread, like the env state that owns the
// world.
#ifndef NEUROEVO_ENVS_BOX2D_B2SHIM_H
#define NEUROEVO_ENVS_BOX2D_B2SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ne__b2_world ne__b2_world;  // opaque: b2World plus its contact listener
typedef struct ne__b2_body ne__b2_body;    // a b2Body*
typedef struct ne__b2_joint ne__b2_joint;  // a b2RevoluteJoint*

// Called from inside ne__b2_world_step for every contact that begins (begin=1) or ends (begin=0),
// with the tags of the two bodies involved.
typedef void (*ne__b2_contact_fn)(void* user, int tag_a, int tag_b, int begin);

// How a fixture collides and feels (b2FixtureDef's fields).
typedef struct ne__b2_fixture {
  float density, friction, restitution;
  uint16_t category, mask;  // collision filter bits
} ne__b2_fixture;

// A shape of a body in world coordinates, for drawing.
typedef struct ne__b2_shape {
  int kind;  // 0 polygon, 1 edge, 2 circle
  int n;     // vertices (polygon: up to 8, edge: 2, circle: 1 = the centre)
  float x[8], y[8];
  float radius;  // circle only
} ne__b2_shape;

// A world with gravity (gx, gy); contact events go to fn(user, ...). NULL if out of memory; the
// caller owns it (ne__b2_world_destroy), and the world owns every body and joint made in it.
ne__b2_world* ne__b2_world_create(float gx, float gy, ne__b2_contact_fn fn, void* user);
void ne__b2_world_destroy(ne__b2_world* w);  // Nullable: w
// Empties w in place into a new world (bodies, joints, proxy ids and lists as a fresh b2World's),
// as Gymnasium's LunarLander makes at every reset (BipedalWalker too: see its file).
void ne__b2_world_reset(ne__b2_world* w);
// One b2World::Step.
void ne__b2_world_step(ne__b2_world* w, float dt, int velocity_iterations, int position_iterations);
// Casts p1 -> p2 and returns the fraction of the closest hit on a fixture whose category has any of
// the bits in `category`, or 1 when nothing is hit (BipedalWalker's lidar).
float ne__b2_world_raycast(ne__b2_world* w, float x1, float y1, float x2, float y2, uint16_t category);

// Bodies: static or dynamic at (x, y) with an angle; `tag` identifies it in contact callbacks.
// Owned by w: they go with ne__b2_world_reset or ne__b2_world_destroy (so do joints).
ne__b2_body* ne__b2_body_create(ne__b2_world* w, int dynamic, float x, float y, float angle, int tag);
// Fixtures: a convex polygon (n <= 8 vertices, body coordinates; Box2D keeps their convex hull), a
// centred box, an edge (no ghost vertices).
void ne__b2_add_polygon(ne__b2_body* b, const float* xy, int n, const ne__b2_fixture* f);
void ne__b2_add_box(ne__b2_body* b, float half_w, float half_h, const ne__b2_fixture* f);
void ne__b2_add_edge(ne__b2_body* b, float x1, float y1, float x2, float y2, const ne__b2_fixture* f);

// Body state.
void ne__b2_body_position(const ne__b2_body* b, float* x, float* y);
float ne__b2_body_angle(const ne__b2_body* b);
void ne__b2_body_velocity(const ne__b2_body* b, float* vx, float* vy);
float ne__b2_body_angular_velocity(const ne__b2_body* b);
int ne__b2_body_awake(const ne__b2_body* b);
void ne__b2_body_force_to_center(ne__b2_body* b, float fx, float fy);
void ne__b2_body_impulse(ne__b2_body* b, float ix, float iy, float px, float py);
// The body's fixtures as world-space shapes; writes up to max, returns how many there are.
int ne__b2_body_shapes(const ne__b2_body* b, ne__b2_shape* out, int max);

// A revolute joint between a and b at the given local anchors (b2RevoluteJointDef's fields), motor
// and limit on; its reference angle is b's angle minus a's now, as pybox2d's revoluteJointDef sets
// it when given both bodies.
ne__b2_joint* ne__b2_revolute_create(ne__b2_world* w, ne__b2_body* a, ne__b2_body* b, float ax, float ay, float bx,
                                     float by, float max_motor_torque, float motor_speed, float lower, float upper);
void ne__b2_joint_set_motor(ne__b2_joint* j, float speed, float max_torque);
float ne__b2_joint_angle(const ne__b2_joint* j);
float ne__b2_joint_speed(const ne__b2_joint* j);

#ifdef __cplusplus
}
#endif
#endif
