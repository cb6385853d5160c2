// SPDX-License-Identifier: MIT
// The C interface of b2shim.h over Box2D 2.3's C++ API (pybox2d's sources, built by
// scripts/build-box2d): the only C++ file of neuroevo (CMake enables CXX for it alone). Each
// function is a direct forward of what pybox2d does for the Python call Gymnasium makes; the contact
// listener and the ray cast callback are the two small classes Box2D requires. Memory comes from
// Box2D's own allocator (b2Alloc, pooled by its block allocator), so stepping a warmed-up world does
// not hit malloc.
#include "envs/box2d/b2shim.h"

#include <Box2D/Box2D.h>  // b2World, b2Body, b2RevoluteJoint, b2ContactListener
#include <stdint.h>       // intptr_t

#include <new>  // std::nothrow, placement new

// forwards BeginContact/EndContact to the C callback with the two bodies' tags
class ContactForwarder : public b2ContactListener {
 public:
  ContactForwarder(ne__b2_contact_fn fn, void* user) : fn_(fn), user_(user) {}
  void BeginContact(b2Contact* c) override { forward(c, 1); }
  void EndContact(b2Contact* c) override { forward(c, 0); }

 private:
  void forward(b2Contact* c, int begin) {
    if (!fn_) return;
    int a = (int)(intptr_t)c->GetFixtureA()->GetBody()->GetUserData();
    int b = (int)(intptr_t)c->GetFixtureB()->GetBody()->GetUserData();
    fn_(user_, a, b, begin);
  }
  ne__b2_contact_fn fn_;
  void* user_;
};

struct ne__b2_world {
  b2Vec2 gravity;
  b2World world;
  ContactForwarder listener;
  ne__b2_world(float gx, float gy, ne__b2_contact_fn fn, void* user)
      : gravity(gx, gy), world(gravity), listener(fn, user) {
    world.SetContactListener(&listener);
  }
};

// keeps the closest hit on a fixture of the wanted category (clipping the ray at each report, as
// Gymnasium's LidarCallback does by returning the fraction)
class ClosestHit : public b2RayCastCallback {
 public:
  explicit ClosestHit(uint16 category) : category_(category), fraction(1.0f) {}
  float32 ReportFixture(b2Fixture* f, const b2Vec2&, const b2Vec2&, float32 frac) override {
    if ((f->GetFilterData().categoryBits & category_) == 0) return -1.0f;
    fraction = frac;
    return frac;
  }
  uint16 category_;
  float fraction;
};

static b2Body* body(ne__b2_body* b) { return reinterpret_cast<b2Body*>(b); }
static const b2Body* body(const ne__b2_body* b) { return reinterpret_cast<const b2Body*>(b); }
static b2RevoluteJoint* joint(ne__b2_joint* j) { return reinterpret_cast<b2RevoluteJoint*>(j); }
static const b2RevoluteJoint* joint(const ne__b2_joint* j) { return reinterpret_cast<const b2RevoluteJoint*>(j); }

// b2FixtureDef from the C description
static b2FixtureDef fixture_def(const b2Shape* shape, const ne__b2_fixture* f) {
  b2FixtureDef fd;
  fd.shape = shape;
  fd.density = f->density;
  fd.friction = f->friction;
  fd.restitution = f->restitution;
  fd.filter.categoryBits = f->category;
  fd.filter.maskBits = f->mask;
  return fd;
}

extern "C" {

ne__b2_world* ne__b2_world_create(float gx, float gy, ne__b2_contact_fn fn, void* user) {
  return new (std::nothrow) ne__b2_world(gx, gy, fn, user);
}

void ne__b2_world_destroy(ne__b2_world* w) { delete w; }

void ne__b2_world_reset(ne__b2_world* w) {
  // in place: the same memory, a world as b2World's constructor leaves it (no bodies, fresh proxy
  // ids, contact and body lists), as Python's `b2World(gravity=...)` makes one
  w->world.~b2World();
  new (&w->world) b2World(w->gravity);
  w->world.SetContactListener(&w->listener);
}

void ne__b2_world_step(ne__b2_world* w, float dt, int velocity_iterations, int position_iterations) {
  w->world.Step(dt, velocity_iterations, position_iterations);
}

float ne__b2_world_raycast(ne__b2_world* w, float x1, float y1, float x2, float y2, uint16_t category) {
  ClosestHit cb(category);
  w->world.RayCast(&cb, b2Vec2(x1, y1), b2Vec2(x2, y2));
  return cb.fraction;
}

ne__b2_body* ne__b2_body_create(ne__b2_world* w, int dynamic, float x, float y, float angle, int tag) {
  b2BodyDef bd;
  bd.type = dynamic ? b2_dynamicBody : b2_staticBody;
  bd.position.Set(x, y);
  bd.angle = angle;
  bd.userData = (void*)(intptr_t)tag;
  return reinterpret_cast<ne__b2_body*>(w->world.CreateBody(&bd));
}

void ne__b2_add_polygon(ne__b2_body* b, const float* xy, int n, const ne__b2_fixture* f) {
  // pybox2d's `vertices=` setter: the points, then Set (which takes their convex hull)
  b2Vec2 v[b2_maxPolygonVertices];
  if (n > 8) n = 8;
  for (int i = 0; i < n; i++) v[i].Set(xy[2 * i], xy[2 * i + 1]);
  b2PolygonShape shape;
  shape.Set(v, n);
  b2FixtureDef fd = fixture_def(&shape, f);
  body(b)->CreateFixture(&fd);
}

void ne__b2_add_box(ne__b2_body* b, float half_w, float half_h, const ne__b2_fixture* f) {
  b2PolygonShape shape;
  shape.SetAsBox(half_w, half_h);
  b2FixtureDef fd = fixture_def(&shape, f);
  body(b)->CreateFixture(&fd);
}

void ne__b2_add_edge(ne__b2_body* b, float x1, float y1, float x2, float y2, const ne__b2_fixture* f) {
  b2EdgeShape shape;  // pybox2d's `vertices=[p1, p2]`: vertex1, vertex2, no ghost vertices
  shape.Set(b2Vec2(x1, y1), b2Vec2(x2, y2));
  b2FixtureDef fd = fixture_def(&shape, f);
  body(b)->CreateFixture(&fd);
}

void ne__b2_body_position(const ne__b2_body* b, float* x, float* y) {
  const b2Vec2& p = body(b)->GetPosition();
  *x = p.x;
  *y = p.y;
}

float ne__b2_body_angle(const ne__b2_body* b) { return body(b)->GetAngle(); }

void ne__b2_body_velocity(const ne__b2_body* b, float* vx, float* vy) {
  const b2Vec2& v = body(b)->GetLinearVelocity();
  *vx = v.x;
  *vy = v.y;
}

float ne__b2_body_angular_velocity(const ne__b2_body* b) { return body(b)->GetAngularVelocity(); }

int ne__b2_body_awake(const ne__b2_body* b) { return body(b)->IsAwake() ? 1 : 0; }

void ne__b2_body_force_to_center(ne__b2_body* b, float fx, float fy) { body(b)->ApplyForceToCenter(b2Vec2(fx, fy), true); }

void ne__b2_body_impulse(ne__b2_body* b, float ix, float iy, float px, float py) {
  body(b)->ApplyLinearImpulse(b2Vec2(ix, iy), b2Vec2(px, py), true);
}

int ne__b2_body_shapes(const ne__b2_body* b, ne__b2_shape* out, int max) {
  int n = 0;
  const b2Transform& xf = body(b)->GetTransform();
  for (const b2Fixture* f = body(b)->GetFixtureList(); f; f = f->GetNext(), n++) {
    if (n >= max) continue;
    ne__b2_shape* s = &out[n];
    const b2Shape* shape = f->GetShape();
    if (shape->GetType() == b2Shape::e_polygon) {
      const b2PolygonShape* p = static_cast<const b2PolygonShape*>(shape);
      s->kind = 0;
      s->n = p->m_count;
      for (int i = 0; i < p->m_count; i++) {
        b2Vec2 v = b2Mul(xf, p->m_vertices[i]);
        s->x[i] = v.x;
        s->y[i] = v.y;
      }
    } else if (shape->GetType() == b2Shape::e_edge) {
      const b2EdgeShape* e = static_cast<const b2EdgeShape*>(shape);
      b2Vec2 v1 = b2Mul(xf, e->m_vertex1), v2 = b2Mul(xf, e->m_vertex2);
      s->kind = 1;
      s->n = 2;
      s->x[0] = v1.x, s->y[0] = v1.y, s->x[1] = v2.x, s->y[1] = v2.y;
    } else {
      const b2CircleShape* c = static_cast<const b2CircleShape*>(shape);
      b2Vec2 v = b2Mul(xf, c->m_p);
      s->kind = 2;
      s->n = 1;
      s->x[0] = v.x, s->y[0] = v.y;
      s->radius = c->m_radius;
    }
  }
  return n;
}

ne__b2_joint* ne__b2_revolute_create(ne__b2_world* w, ne__b2_body* a, ne__b2_body* b, float ax, float ay, float bx, float by,
                                float max_motor_torque, float motor_speed, float lower, float upper) {
  b2RevoluteJointDef jd;
  jd.bodyA = body(a);
  jd.bodyB = body(b);
  jd.localAnchorA.Set(ax, ay);
  jd.localAnchorB.Set(bx, by);
  jd.enableMotor = true;
  jd.enableLimit = true;
  jd.maxMotorTorque = max_motor_torque;
  jd.motorSpeed = motor_speed;
  jd.lowerAngle = lower;
  jd.upperAngle = upper;
  // pybox2d's revoluteJointDef(bodyA=, bodyB=, ...) sets the reference angle to bodyB.angle -
  // bodyA.angle (Python floats, so the difference is taken in double) when none is given; the
  // limits and the joint angle are measured from it
  jd.referenceAngle = (float32)((double)body(b)->GetAngle() - (double)body(a)->GetAngle());
  return reinterpret_cast<ne__b2_joint*>(w->world.CreateJoint(&jd));
}

void ne__b2_joint_set_motor(ne__b2_joint* j, float speed, float max_torque) {
  joint(j)->SetMotorSpeed(speed);
  joint(j)->SetMaxMotorTorque(max_torque);
}

float ne__b2_joint_angle(const ne__b2_joint* j) { return joint(j)->GetJointAngle(); }

float ne__b2_joint_speed(const ne__b2_joint* j) { return joint(j)->GetJointSpeed(); }

}  // extern "C"
